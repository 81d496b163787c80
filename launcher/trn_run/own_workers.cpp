#include "own_workers.hpp"

#include <iostream>

#include "common/exit_codes.hpp"
#include "job_outcome.hpp"
#include "step_setup.hpp"
#include "train_phase.hpp"
#include "trn/common/env_names.hpp"
#include "trn/plan/plan_report.hpp"
#include "trn/run/run_continuation.hpp"

namespace trn::launcher {
namespace {

// What the platform does with kNodeFailure, so that the user knows how the run goes on.
std::string how_it_goes_on(run::Launcher launcher) {
  switch (launcher) {
    case run::Launcher::kBatch:
      return "AWS Batch retries the job when its retry strategy retries exit 5 (docs/launchers.md"
             "#exit-statuses)";
    case run::Launcher::kSageMaker:
      return "SageMaker restarts the job when its retry strategy allows; checkpoints in "
             "/opt/ml/checkpoints come back";
    case run::Launcher::kMpi:
      return "start the MPIJob (or mpirun) again";
    default:
      return "run the same trn-run command again with --resume RUN_DIR";
  }
}

}  // namespace

std::vector<std::string> node_workers_starter(const InstallLayout& layout,
                                              const run::LaunchEnvironment& launch, unsigned tasks,
                                              const std::string& fsroot) {
  return {(layout.bin_dir / "trn-launcher").string(),
          "node-workers",
          "--tasks=" + std::to_string(tasks),
          "--nodes=" + std::to_string(launch.nodes),
          "--node-rank=" + std::to_string(launch.node_rank),
          "--main-host=" + launch.main_host,
          "--fsroot=" + fsroot};
}

int train_on_own_workers(const OwnWorkersJob& job, nlohmann::json& phases,
                         std::chrono::steady_clock::time_point started) {
  const auto& plan = *job.plan;
  const auto& launch = *job.launch;
  const bool main_node = launch.node_rank == 0;
  auto compile = job.compile;
  compile.plan = &plan;
  compile.starter = node_workers_starter(*job.layout, launch, 1, job.fsroot);
  if (const auto ended = pull_and_compile(compile, phases, job.compile_only)) return *ended;
  phases["before_train_seconds"] = seconds_since(started);

  auto step = training_step(plan, *job.layout, 0, 0);
  step.starter = node_workers_starter(*job.layout, launch,
                                      static_cast<unsigned>(plan.tasks_per_node), job.fsroot);
  step.srun_args.clear();
  step.first_node = job.this_node;
  step.log_dir_shared = launch.nodes > 1;
  step.echo_rank = launch.node_rank * static_cast<unsigned>(plan.tasks_per_node);
  if (launch.nodes > 1) {
    // Each node's trn-run watches its own ranks: the run directory may be shared, and no node
    // may clear another's heartbeats.
    step.watch_dir /= "node-" + std::to_string(launch.node_rank);
    step.env[std::string(env::kTrnWatchDir)] = step.watch_dir.string();
    step.watchdog.ranks = static_cast<unsigned>(plan.workers_per_node);
  }
  std::cout << "trn-run: training on node " << launch.node_rank << " of " << launch.nodes << ": "
            << plan::display_command(step.command) << '\n'
            << std::flush;
  const auto train_started = std::chrono::steady_clock::now();
  const auto outcome = run_train_step(step);
  phases["train_seconds"] = seconds_since(train_started);
  if (outcome.status == 0 && outcome.stopped == StopReason::kNone) {
    if (main_node) write_results(plan, phases, job.forecast);
    std::cout << "trn-run: done in " << seconds_since(started) << " s"
              << (main_node ? "; results in " + (plan.run_dir / "results.json").string() : "")
              << '\n';
    return kSuccess;
  }
  const auto& diagnosis = outcome.diagnosis;
  if (diagnosis.kind == run::FailureKind::kUserError && outcome.stopped != StopReason::kHang) {
    std::cerr << "trn-run: training failed: " << diagnosis.summary << '\n';
    if (!diagnosis.excerpt.empty()) std::cerr << diagnosis.excerpt << '\n';
    std::cerr << "trn-run: the same error on every rank is the training's own: fix it and start "
                 "again (exit 1, not retried)\n";
    // "Run again" to the trainer means the same --output; a new trn-run makes a new run
    // directory, so the way back to this run's checkpoints is said here.
    if (const auto newest = run::newest_checkpoint(plan.run_dir); newest > 0) {
      std::cerr << "trn-run: " << plan.run_dir.string() << " holds checkpoints up to step "
                << newest << ": after the fix, continue this run with: trn-run " << job.profile
                << " --resume " << plan.run_dir.string() << '\n';
    }
    return kUserError;
  }
  std::cerr << "trn-run: training stopped: "
            << (outcome.stopped == StopReason::kHang ? "no step completed within the watchdog's "
                                                       "deadline"
                                                     : diagnosis.summary)
            << "; exit 5: " << how_it_goes_on(launch.launcher)
            << ", and the run resumes from the newest checkpoint in " << plan.run_dir.string()
            << '\n';
  return kNodeFailure;
}

}  // namespace trn::launcher
