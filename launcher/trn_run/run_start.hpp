#pragma once

#include <optional>

#include "run_command.hpp"
#include "run_options.hpp"
#include "trn/run/launch_environment.hpp"
#include "trn/run/slurm_allocation.hpp"

namespace trn::launcher {

// How this trn-run was started. Chosen once, by resolve_start; every later stage of run_command
// follows from it (docs/architecture.md#trn-run-stages).
enum class StartKind {
  kMpiLauncher,   // --launcher mpi on the MPI Operator's launcher: mpirun trn-run on every host
  kSlurmJob,      // a Slurm job's batch script: the job's nodes, srun steps, in-job recovery
  kCompileAgent,  // trn-compile inside an srun step: this node's compile agent
  kOwnWorkers,    // one trn-run per node that starts its node's workers itself: one instance,
                  // AWS Batch, SageMaker, mpirun (docs/launchers.md#own-workers)
  kPlanAway,      // --plan --nodes N where no job shows those nodes: planned for their type
};

struct RunStart {
  StartKind kind = StartKind::kPlanAway;
  Mode mode = Mode::kRun;         // trn-run, or trn-compile (the compile phase alone)
  run::LaunchEnvironment launch;  // the launcher and why it was chosen (every plan names it)
  // The Slurm job trn-run runs in; none outside Slurm, and none where trn-run starts its own
  // workers (--launcher local in a job: the job plays no part).
  std::optional<run::SlurmAllocation> allocation;
};

// Stage 1: who started trn-run (--launcher, else the environment) and what it may do there.
// A start that cannot train as asked (torchrun around it, a Slurm head node, --nodes that
// contradicts the job or the launcher) throws trn::Error naming the fix.
RunStart resolve_start(const RunOptions& options, Mode mode, const run::EnvLookup& env);

// The launcher starts one trn-run per node, which starts that node's workers (not srun).
bool starts_own_workers(run::Launcher launcher);

}  // namespace trn::launcher
