#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trn/common/deadline.hpp"
#include "trn/common/process.hpp"
#include "trn/health/check_result.hpp"

namespace trn::health {

// `trn-health --step` on a Neuron node: a small all-reduce over the node's NeuronCores with
// Neuron's nccom-test, when installed (docs/health.md#collectives).
struct CollectivesOptions {
  std::optional<std::filesystem::path> nccom_test;  // nullopt: not installed
  unsigned ranks = 0;  // the node's logical NeuronCores; 0: no Neuron devices to test
  SteadyClock::time_point deadline = SteadyClock::time_point::max();  // the node's budget
  // What reads the time and what runs nccom-test with what is left of the budget as its
  // timeout: a test's own clock and stand-in decide the budget without waiting it out.
  TimeSource now = SteadyClock::now;
  ProcessRunner run_tool = capture_process;
};

// Bytes each all-reduce moves: small, so that the run fits the node's budget.
inline constexpr unsigned kAllReduceBytes = 65536;

// The command line: `nccom-test -r RANKS -b B -e B -n 5 -w 1 -d fp32 allr --check`.
std::vector<std::string> nccom_test_command(const std::filesystem::path& nccom_test,
                                            unsigned ranks);

// nccom-test's documented output judged: a result row is ok; its failure row ("Failure running
// neuron-bench - log file ..."), "N errors found - test failed" or "Neuron DKMS Driver is not
// running" is FAILED; anything else (a usage error of another version, say) is a warning: the
// check could not decide.
CheckResult judge_nccom_test(const std::string& output, int exit_status, unsigned ranks);

// "collectives": skipped without Neuron devices or without nccom-test, a warning when it cannot
// finish within the budget; never run in --slurm mode (a job may hold the devices).
CheckResult check_collectives(const CollectivesOptions& options);

}  // namespace trn::health
