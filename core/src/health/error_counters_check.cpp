// Uncorrected ECC counters per device and hardware errors per NeuronCore (docs/health.md
// #counters). They count from driver load, so only a rise since the node's last clean check
// makes it unhealthy; the evidence names device, counter and value.
#include <algorithm>

#include "../topology/neuron_sysfs.hpp"
#include "../topology/sysfs.hpp"
#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health {
namespace {

constexpr const char* kErrorCountersCheckName = "error-counters";
constexpr std::string_view kDeviceCounters[] = {
    "mem_ecc_uncorrected", "mem_ecc_repairable_uncorrected", "sram_ecc_uncorrected"};

// The entries of `dir` (sorted) that `keep` accepts.
template <typename Keep>
std::vector<std::string> entries(const std::filesystem::path& dir, Keep keep) {
  auto names = topology::sysfs::list_directory(dir);
  std::erase_if(names, [&](const std::string& name) { return !keep(name); });
  return names;
}

struct Reading {
  std::vector<std::string> rises;     // "neuron3 mem_ecc_uncorrected 2 (was 0)"
  std::vector<std::string> problems;  // unreadable or garbage counters
  unsigned read = 0;
};

void read_counter(const std::filesystem::path& device_root, const std::string& key,
                  const std::string& label, const Baseline& baseline,
                  std::map<std::string, std::int64_t>& counters, Reading& reading) {
  const auto file = device_root / key / "total";
  const FileRead read = try_read_text(file);
  if (read.status == FileRead::Status::kMissing) return;  // older drivers lack some counters
  const auto value = read.ok() ? parse_whole_number(trim(read.text)) : std::nullopt;
  if (!value || *value < 0) {
    reading.problems.push_back(
        file.string() +
        (read.ok() ? " holds no count" : " unreadable (" + read_failure_reason(read) + ")"));
    return;
  }
  ++reading.read;
  const auto full_key = device_root.filename().string() + "/" + key;
  counters[full_key] = *value;
  const auto it = baseline.counters.find(full_key);
  const std::int64_t before = it == baseline.counters.end() ? 0 : it->second;
  if (*value > before) {
    reading.rises.push_back(label + " " + std::to_string(*value) + " (" +
                            (baseline.unusable.empty()
                                 ? std::to_string(before) + " at the last clean check"
                                 : "no usable baseline: " + baseline.unusable) +
                            ")");
  }
}

}  // namespace

CheckResult check_error_counters(const NodeCheckOptions& options,
                                 std::map<std::string, std::int64_t>& counters) {
  const auto base = options.fsroot / "sys/devices/virtual/neuron_device";
  const auto is_device = [](const std::string& name) {
    return topology::neuron_device_index(name).has_value();
  };
  const auto is_core = [](const std::string& name) {
    return name.size() > 11 && name.starts_with("neuron_core");
  };
  Reading reading;
  try {
    const auto devices = entries(base, is_device);
    if (devices.empty())
      return {kErrorCountersCheckName, CheckStatus::kSkipped, "no Neuron devices"};
    for (const auto& device : devices) {
      const auto root = base / device;
      for (const auto counter : kDeviceCounters) {
        read_counter(root, "stats/hardware/" + std::string(counter),
                     device + " " + std::string(counter), options.baseline, counters, reading);
      }
      for (const auto& core : entries(root, is_core)) {
        std::string label = device;
        label.append(" ").append(core).append(" hw_error");
        read_counter(root, core + "/stats/status/hw_error", label, options.baseline, counters,
                     reading);
      }
    }
  } catch (const Error& error) {  // an unreadable folder: the check could not run
    return {kErrorCountersCheckName, CheckStatus::kWarning, error.what()};
  }
  if (!reading.rises.empty()) {
    std::string evidence = reading.rises.front();
    if (reading.rises.size() > 1)
      evidence += " and " + std::to_string(reading.rises.size() - 1) + " more";
    return {kErrorCountersCheckName, CheckStatus::kFailed, evidence};
  }
  if (!reading.problems.empty()) {
    return {kErrorCountersCheckName, CheckStatus::kWarning, reading.problems.front()};
  }
  if (reading.read == 0) {
    return {kErrorCountersCheckName, CheckStatus::kWarning,
            "no error counters under " + base.string() + " (Neuron driver too old?)"};
  }
  return {kErrorCountersCheckName, CheckStatus::kOk,
          std::to_string(reading.read) + " counters at or below the last clean check"};
}

}  // namespace trn::health
