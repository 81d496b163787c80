#include "run_start.hpp"

#include <filesystem>
#include <string>

#include "trn/common/error.hpp"

namespace trn::launcher {
namespace {

// Who started trn-run (docs/launchers.md#detection): --launcher, else the environment's
// variables; SageMaker's resource file and the MPI Operator's hostfile where they exist.
run::LaunchEnvironment detect_launcher(const RunOptions& options, const run::EnvLookup& env) {
  run::LaunchInputs inputs;
  inputs.env = env;
  inputs.forced = options.launcher;
  inputs.sagemaker_resource_config =
      run::read_launcher_file("/opt/ml/input/config/resourceconfig.json");
  inputs.mpi_hostfile = run::read_launcher_file("/etc/mpi/hostfile");
  return run::detect_launch_environment(inputs);
}

// A machine with a Slurm client configuration (a cluster's head or login node) that no launcher
// started: training here is rarely what was meant.
bool slurm_submit_host(const run::EnvLookup& env) {
  return env("SLURM_CONF").has_value() || std::filesystem::exists("/etc/slurm/slurm.conf");
}

// Why trn-run cannot train as started, or "" when it can.
std::string cannot_train(const run::LaunchEnvironment& launch,
                         const std::optional<run::SlurmAllocation>& allocation,
                         const RunOptions& options, const run::EnvLookup& env) {
  const auto& profile = options.profile;
  const std::string submit = "submit with `sbatch --nodes=N trn-run " + profile +
                             "`, or see the plan with `trn-run " + profile + " --nodes N --plan`";
  if (launch.launcher == run::Launcher::kSlurm && !allocation) {
    return "--launcher slurm outside a Slurm job: " + submit;
  }
  if (launch.launcher == run::Launcher::kTorchrun) {
    return "started by torchrun (" + launch.reason +
           "): trn-run starts torchrun itself; run `trn-run " + profile +
           "` once per node instead (docs/launchers.md)";
  }
  if (launch.launcher == run::Launcher::kLocal && !options.launcher && slurm_submit_host(env)) {
    return "not inside a Slurm job, on a machine with a Slurm configuration (a head or login "
           "node): " +
           submit + "; or train on this machine with --launcher local";
  }
  return "";
}

}  // namespace

// trn-run starts its own node's workers under these launchers (docs/launchers.md#own-workers);
// Slurm's srun starts them in a job.
bool starts_own_workers(run::Launcher launcher) {
  return launcher != run::Launcher::kSlurm && launcher != run::Launcher::kTorchrun;
}

RunStart resolve_start(const RunOptions& options, Mode mode, const run::EnvLookup& env) {
  RunStart start;
  start.mode = mode;
  if (options.launcher == run::Launcher::kMpi && !options.plan_only && mode == Mode::kRun &&
      !env("OMPI_COMM_WORLD_SIZE")) {
    start.kind = StartKind::kMpiLauncher;  // the MPI Operator's launcher: mpirun it
    return start;
  }
  auto allocation = run::read_slurm_allocation(env);
  start.launch = detect_launcher(options, env);
  const bool own_workers = starts_own_workers(start.launch.launcher);
  // A sweep plans for many node counts of the compute nodes' type, none of them --nodes.
  const bool plan_away = options.plan_only && (options.nodes || options.forecast.sweep);
  if (!plan_away) {
    if (const auto why = cannot_train(start.launch, allocation, options, env); !why.empty())
      throw Error(why);
  }
  if (own_workers && !options.plan_only && options.nodes && *options.nodes != start.launch.nodes) {
    throw Error("--nodes " + std::to_string(*options.nodes) + " does not match the " +
                std::to_string(start.launch.nodes) + " node(s) " +
                std::string(run::to_string(start.launch.launcher)) + " started (" +
                start.launch.reason + "): drop --nodes");
  }
  if (own_workers) allocation.reset();  // --launcher local in a job: the job plays no part
  const bool agent = mode == Mode::kCompile && allocation && allocation->in_step;
  if (allocation && !agent && !options.plan_only && options.nodes &&
      *options.nodes != allocation->nnodes) {
    // Training on fewer nodes idles the rest; more fails every try (and is requeued).
    const auto given = std::to_string(*options.nodes);
    const auto has = std::to_string(allocation->nnodes);
    throw Error("--nodes " + given + " does not match job " + std::to_string(allocation->job_id) +
                ", which has " + has + " node(s): drop --nodes to train on the job's " + has +
                ", or submit with sbatch --nodes=" + given);
  }
  if (own_workers && !plan_away)
    start.kind = StartKind::kOwnWorkers;
  else if (agent)
    start.kind = StartKind::kCompileAgent;
  else if (allocation && !options.forecast.sweep &&
           (!options.nodes || *options.nodes == allocation->nnodes))
    start.kind = StartKind::kSlurmJob;
  else
    start.kind = StartKind::kPlanAway;  // only --plan --nodes N or --sweep gets here (see above)
  start.allocation = std::move(allocation);
  return start;
}

}  // namespace trn::launcher
