#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "trn/forecast/node_hardware.hpp"
#include "trn/forecast/step_model.hpp"

namespace trn::forecast {

// What a finished run measured, from its results.json (the trainer's medians over the run's
// steps, and the plan trn-run wrote beside them).
struct RunMeasurement {
  std::filesystem::path file;
  std::string instance_type;  // "" for CPU nodes
  StepShape shape;
  double step_s = 0;
  double micro_step_s = 0;
  double allreduce_s = 0;
  double optimizer_s = 0;
};

// Throws trn::Error naming the file and the missing or wrong entry (and how to get one: a run
// of this version's trn-run to its end).
RunMeasurement read_run_measurement(const std::filesystem::path& run_dir);

// The calibration a measured run gives, for nodes like its own (`hardware`): its micro-step and
// optimizer times, and what its step took beyond those parts - on one node as a fixed term per
// step; on more nodes as the per-node term, after the bandwidth its all-reduce reached (which
// replaces `hardware`'s).
Calibration calibration_from_run(const RunMeasurement& run, NodeHardware& hardware);

}  // namespace trn::forecast
