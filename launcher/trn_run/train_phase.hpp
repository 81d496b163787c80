#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "trn/run/failure_diagnosis.hpp"

namespace trn::launcher {

struct TrainStep {
  std::vector<std::string> srun_args;  // node and task layout
  std::vector<std::string> command;    // what every task runs
  std::map<std::string, std::string> env;
  std::filesystem::path log_dir;
  std::string phase;       // names the logs: <phase>_<node>_<nnodes>.log
  std::string first_node;  // runs task 0 (srun's block distribution)
  unsigned nnodes = 1;
  unsigned tasks = 1;  // srun tasks: the labels in the logs
};

struct TrainOutcome {
  int status = 0;
  run::FailureDiagnosis diagnosis;  // meaningful when status != 0
};

// Runs the step with srun, one labelled log per node, and streams rank 0's lines to stdout.
TrainOutcome run_train_step(const TrainStep& step);

}  // namespace trn::launcher
