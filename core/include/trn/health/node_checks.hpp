#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trn/common/deadline.hpp"
#include "trn/common/process.hpp"
#include "trn/health/baseline.hpp"
#include "trn/health/check_result.hpp"
#include "trn/topology/neuron_ls.hpp"

namespace trn::health {

// The libfabric providers fi_getinfo offered, asked in trn-health's own process (never in
// slurmstepd): see launcher/common/fabric_report.hpp.
struct FabricProviders {
  std::vector<std::string> providers;
  std::string error;  // fi_getinfo's error, when it failed
};

// Issue 9: the whole check of one node takes at most 10 s. Every external tool (neuron-ls,
// libfabric, nccom-test) and the reach deadline get what is left of it; a check that could not
// finish in time is a warning, never a drain.
inline constexpr std::chrono::milliseconds kNodeCheckBudget{10000};
// neuron-ls never gets more than this, even with budget left (docs/health.md#slurm).
inline constexpr std::chrono::milliseconds kNeuronLsLimit{10000};

struct NodeCheckOptions {
  std::filesystem::path fsroot = "/";  // every file is read below it (a fixture tree in tests)
  Baseline baseline;                   // the node's last clean check (read_baseline)
  // A recorded `neuron-ls -j`; else neuron_ls_program is run with `-j` (when installed).
  std::optional<topology::NeuronLsOutput> neuron_ls;
  std::optional<std::filesystem::path> neuron_ls_program;
  // The end of the node's budget (kNodeCheckBudget from the start); max(): no budget.
  SteadyClock::time_point deadline = SteadyClock::time_point::max();
  // What reads the time and what runs the tools (neuron-ls), each tool with what is left of the
  // budget as its timeout. A test gives a clock it moves itself and a stand-in for the tool, so
  // the budget's decisions are tested without waiting it out (tests/unit/health/).
  TimeSource now = SteadyClock::now;
  ProcessRunner run_tool = capture_process;
  // Asks libfabric, only where EFA is expected (loading it costs 0.2 s on some builds); empty:
  // not asked (a recorded tree: this machine's libfabric says nothing about it).
  std::function<FabricProviders()> fabric;
  std::optional<std::filesystem::path> cache_dir;  // the node-local compile-cache tier
  // cache_dir is the node's own tier (given by the operator), not a job's NEURON_COMPILE_CACHE_URL,
  // which a user may point anywhere: only then is a full or read-only cache a node fault.
  bool cache_dir_is_node_tier = true;
  std::uint64_t min_free_bytes = std::uint64_t{1} << 30;
};

// What the documented instance type says the node must have. Unknown types expect nothing.
struct Expected {
  std::string instance_type;
  unsigned devices = 0;
  unsigned cores_per_device = 0;  // physical NeuronCores
  std::string device_name;        // "Trainium1"
  unsigned efa_devices = 0;
  std::map<std::string, std::string> efa_served;  // "0000:10:1a.0" -> "neuron0, neuron1"
  bool documented = false;
};
Expected expected_for(const std::filesystem::path& fsroot);

// One check per file (core/src/health/<check>_check.cpp); each returns its result and never
// throws for what it reads (unreadable or garbage input is a warning).
CheckResult check_neuron_devices(const NodeCheckOptions& options, const Expected& expected);
// Also fills `counters` with every value read, for the next baseline.
CheckResult check_error_counters(const NodeCheckOptions& options,
                                 std::map<std::string, std::int64_t>& counters);
// Also sets `last_sequence` to the newest kernel log record read.
CheckResult check_kernel_log(const NodeCheckOptions& options, std::uint64_t& last_sequence);
CheckResult check_efa(const NodeCheckOptions& options, const Expected& expected);
// An EFA device whose driver counted admin commands it never completed since the last clean
// check; also fills `counters` with every value read, for the next baseline.
CheckResult check_efa_errors(const NodeCheckOptions& options, const Expected& expected,
                             std::map<std::string, std::int64_t>& counters);
CheckResult check_cache_tier(const NodeCheckOptions& options);

struct NodeCheckRun {
  NodeHealth health;
  Baseline observed;  // what a clean check records as the new baseline
};

// Every node-local check, each timed.
NodeCheckRun check_node(const NodeCheckOptions& options, const std::string& node);

}  // namespace trn::health
