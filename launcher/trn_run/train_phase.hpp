#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trn/run/failure_diagnosis.hpp"
#include "trn/run/watchdog.hpp"

namespace trn::launcher {

struct TrainStep {
  // What starts the tasks: srun, or trn-launcher node-workers on a node that starts its own
  // (docs/launchers.md#own-workers); both take srun's --label, --kill-on-bad-exit and --output.
  std::vector<std::string> starter = {"srun"};
  std::vector<std::string> srun_args;  // node and task layout
  std::vector<std::string> command;    // what every task runs
  std::map<std::string, std::string> env;
  std::filesystem::path log_dir;
  std::string phase;       // names the logs: <phase>_<node>_<nnodes>.log
  std::string first_node;  // runs task 0 (srun's block distribution), or `echo_rank`
  // Other nodes' trn-runs write their logs into log_dir too (own workers): of the logs of an
  // earlier attempt only first_node's are this trn-run's to set aside.
  bool log_dir_shared = false;
  unsigned echo_rank = 0;  // whose lines go to stdout: rank 0, or this node's first
  unsigned nnodes = 1;
  unsigned tasks = 1;  // srun tasks: the labels in the logs
  // The ranks' heartbeats (TRN_WATCH_DIR), read by the watchdog; empty: no watchdog.
  std::filesystem::path watch_dir;
  run::WatchdogSettings watchdog;
  // Asked once for each straggler named: true stops the step at the next committed checkpoint
  // in `run_dir`, so that the straggler can be swapped for a spare.
  std::function<bool(const run::Straggler&)> replace_straggler;
  std::filesystem::path run_dir;
};

// Why the watchdog ended a step early, if it did.
enum class StopReason { kNone, kFailedRank, kHang, kStraggler };

struct TrainOutcome {
  int status = 0;
  run::FailureDiagnosis diagnosis;  // meaningful when status != 0
  StopReason stopped = StopReason::kNone;
  double detected_s = 0;      // seconds from the step's start to the watchdog's finding
  double detected_unix = 0;   // when, as Unix time (heartbeats carry Unix times)
  run::WatchVerdict verdict;  // the failure or hang the watchdog found
  std::vector<run::Straggler> stragglers;
  std::string straggler_replaced;  // the node the step was stopped for
  long first_step = -1;            // the step the ranks started from (a resumed run's checkpoint)
  long last_step = -1;             // the steps every rank completed, as the watchdog last saw
  std::optional<double> first_step_done_s;  // from the step's start to its first completed step
  double last_beat_unix = 0;  // the newest heartbeat of the ranks that went silent (a lost node)
  double started_unix = 0;    // when srun was started, as Unix time (the ranks' own clocks)
};

// Runs the step with srun, one labelled log per node, streams rank 0's lines to stdout, and
// watches the ranks' heartbeats: a rank that failed, a hang (its ranks' stacks written first)
// or a straggler to replace ends the step at once, without waiting for Slurm to give up on a
// lost node.
TrainOutcome run_train_step(const TrainStep& step);

}  // namespace trn::launcher
