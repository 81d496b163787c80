#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trn/health/collectives.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health_tool {

enum class Mode {
  kNode,    // check this node, report, exit 0/1
  kStep,    // one task per node of a Slurm step: also the all-to-all reach check
  kSlurm,   // HealthCheckProgram: drain when unhealthy, resume what we drained once healthy
  kAccept,  // record the current counters and kernel log as the clean baseline
};

struct Options {
  Mode mode = Mode::kNode;
  bool json = false;
  std::string node;  // this node's Slurm name
  std::filesystem::path state_dir;
  health::NodeCheckOptions checks;
  std::chrono::milliseconds reach_deadline{5000};
  // The whole run's limit (the watchdog): below Slurm's 60 s for a HealthCheckProgram.
  std::chrono::seconds time_limit{50};
  // nccom-test (--step, on Neuron nodes), when installed.
  std::optional<std::filesystem::path> nccom_test;
  // Its all-reduce's least bus bandwidth, GB/s; 0: no floor (docs/health.md#collectives).
  unsigned min_busbw = health::kDefaultMinBusbw;
};

// Parses the command line (exits 0 after --help); throws trn::Error for bad input.
Options parse_options(const std::vector<std::string>& args);

}  // namespace trn::health_tool
