#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trn::health {

// A `NEURON_HW_ERR=<TYPE> ... nd-id=<device> nc-id=<core> ... action=<ACTION>` line the Neuron
// driver writes to the kernel log (docs/health.md#kernel-log).
struct HardwareErrorLine {
  std::uint64_t sequence = 0;  // the kmsg record's sequence number
  std::string type;            // e.g. HBM_UNCORRECTABLE_ERROR
  std::string device;          // nd-id, "" when absent
  std::string core;            // nc-id, "" when absent
  std::string action;          // the driver's suggested action, "" when absent
  bool permanent = false;      // as the Neuron problem detector classifies it: replace the node
};

// The types the Neuron problem detector treats as permanent (the instance must be replaced);
// every other type is repairable (driver reload or reboot).
bool is_permanent_hardware_error(std::string_view type);

// One /dev/kmsg record ("<prio>,<seq>,<usec>,<flags>;<text>"); nullopt unless it holds a
// NEURON_HW_ERR= field.
std::optional<HardwareErrorLine> parse_kmsg_record(std::string_view record);

struct KernelLogScan {
  std::vector<HardwareErrorLine> errors;  // after `after_sequence`, in log order
  std::uint64_t last_sequence = 0;        // the newest record read (0: none)
  std::string note;  // what could not be read (a file too large was read from its end)
};

// Reads <root>/dev/kmsg: the kernel's record device on a node (read without blocking until no
// record is left), a regular file of records in a recorded tree. Files over `max_bytes` are
// read from their end. Throws trn::Error when it cannot be opened.
KernelLogScan scan_kernel_log(const std::filesystem::path& root, std::uint64_t after_sequence,
                              std::size_t max_bytes = 64u << 20);

}  // namespace trn::health
