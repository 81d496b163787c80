#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trn/common/deadline.hpp"
#include "trn/common/process.hpp"
#include "trn/health/check_result.hpp"

namespace trn::health {

// The least bus bandwidth (GB/s, as nccom-test prints it) of a healthy node's all-reduce at
// kAllReduceBytes, by default: under a tenth of the lowest that the NCCOM-TEST user guide shows
// for an all-reduce of that size (22.69 GB/s, 64 ranks on two instances over EFA), since no
// public figure says what a whole healthy node reaches (docs/health.md#collectives).
inline constexpr unsigned kDefaultMinBusbw = 2;

// `trn-health --step` on a Neuron node: an all-reduce over the node's NeuronCores with Neuron's
// nccom-test, when installed (docs/health.md#collectives).
struct CollectivesOptions {
  std::optional<std::filesystem::path> nccom_test;  // nullopt: not installed
  unsigned ranks = 0;  // the node's logical NeuronCores; 0: no Neuron devices to test
  unsigned min_busbw = kDefaultMinBusbw;  // GB/s; 0: no floor (trn-health --min-busbw)
  SteadyClock::time_point deadline = SteadyClock::time_point::max();  // the node's budget
  // What reads the time and what runs nccom-test with what is left of the budget as its
  // timeout: a test's own clock and stand-in decide the budget without waiting it out.
  TimeSource now = SteadyClock::now;
  ProcessRunner run_tool = capture_process;
};

// Bytes each all-reduce moves: nccom-test's default size, the one its guide's "quick environment
// validation" runs. Moving them takes milliseconds, far longer than the collective's latency
// (microseconds per hop), so the bus bandwidth says something about the links; 64 KiB would
// measure latency only.
inline constexpr unsigned kAllReduceBytes = 32U << 20;

// The command line: `nccom-test -r RANKS -b B -e B -n 5 -w 1 -d fp32 allr --check`.
std::vector<std::string> nccom_test_command(const std::filesystem::path& nccom_test,
                                            unsigned ranks);

// nccom-test's documented output judged: a result row is ok when its bus bandwidth is at least
// `min_busbw` GB/s (0: any; one rank has no bus to measure), FAILED below it; its failure row
// ("Failure running neuron-bench - log file ..."), "N errors found - test failed" or "Neuron
// DKMS Driver is not running" is FAILED; anything else (a usage error of another version, a row
// without a bus bandwidth to hold against the floor) is a warning: the check could not decide.
CheckResult judge_nccom_test(const std::string& output, int exit_status, unsigned ranks,
                             unsigned min_busbw);

// "collectives": skipped without Neuron devices or without nccom-test, a warning when it cannot
// finish within the budget; never run in --slurm mode (a job may hold the devices).
CheckResult check_collectives(const CollectivesOptions& options);

}  // namespace trn::health
