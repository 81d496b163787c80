#include "run_plan.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "common/exit_codes.hpp"
#include "plan_forecast.hpp"
#include "plan_memory.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "trn/forecast/sweep.hpp"
#include "trn/forecast/sweep_report.hpp"
#include "trn/plan/plan_report.hpp"
#include "trn/plan/profile_keys.hpp"
#include "trn/plan/profile_search.hpp"
#include "trn/run/allocation_fit.hpp"
#include "trn/run/run_continuation.hpp"
#include "trn/run/run_directory_space.hpp"
#include "trn/run/spare_swap.hpp"

namespace trn::launcher {
namespace {

// The plan's memory line, or nothing where no estimate applies.
std::string memory_text(const std::optional<PlanMemory>& memory) {
  return memory ? plan_memory_line(*memory) : "";
}

// The plan's line naming the launcher and why it was chosen.
std::string launcher_line(const run::LaunchEnvironment& launch) {
  return "launcher          " + std::string(run::to_string(launch.launcher)) + " (" +
         launch.reason + ")\n";
}

nlohmann::json launcher_json(const run::LaunchEnvironment& launch) {
  return {{"name", run::to_string(launch.launcher)}, {"reason", launch.reason}};
}

// Slurm ends a job at scancel or its time limit without a word from us: say up front how to go
// on from the checkpoints.
void print_how_to_continue(const plan::Plan& plan, const std::string& run_dir, unsigned nnodes,
                           const std::string& profile) {
  if (plan.resumable) {
    std::cout << "trn-run: run directory " << run_dir
              << "; if the job stops early (scancel, time limit), continue it with: sbatch --nodes="
              << nnodes << " trn-run " << profile << " --resume " << run_dir << '\n';
  } else {
    std::cout << "trn-run: run directory " << run_dir
              << "; the profile's command takes no checkpoint placeholder (see resume above): a "
                 "job that stops early starts over\n";
  }
  std::cout << std::flush;
}

// The run directory's name where no Slurm job names it: the launcher's job, the same on every
// node and retry; a single instance's run is named by its start time (--resume continues it).
std::string own_run_name(const run::LaunchEnvironment& launch) {
  if (!launch.run_name.empty()) return launch.run_name;
  if (launch.launcher != run::Launcher::kLocal) return std::string(run::to_string(launch.launcher));
  const auto now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "local-%Y%m%d-%H%M%S", &local);
  return stamp;
}

// One instance names its run by the second it started: two trn-runs started in the same second
// must not share a folder, so the folder is made here, exclusively, taking the next free name
// (-2, -3, ...). `request` then names that folder.
void reserve_run_dir(const plan::Profile& profile, plan::PlanRequest& request) {
  const auto base = request.run_name;
  for (unsigned i = 1;; ++i) {
    request.run_name = i == 1 ? base : base + "-" + std::to_string(i);
    const auto dir = plan::make_plan(profile, request).run_dir;
    std::error_code ignored;
    std::filesystem::create_directories(dir.parent_path(), ignored);
    if (::mkdir(dir.c_str(), 0755) == 0) return;
    if (errno != EEXIST || i == 1000) {
      throw Error("cannot make the run directory " + dir.string() + " (" + std::strerror(errno) +
                  "): give an output root you can write (--output-root DIR)");
    }
  }
}

// A sweep's own plan (its profile, model and node type for the forecast): the plan on its first
// node count that plans; --nodes plays no part. When no count plans, the first count's reason.
template <typename MakePlan>
plan::Plan first_plan_of_sweep(const std::string& counts_text, const plan::PlanRequest& request,
                               const MakePlan& make) {
  const auto counts = forecast::parse_node_counts(counts_text);
  std::string first_reason;
  for (const auto count : counts) {
    auto at = request;
    at.cluster.nodes = count;
    at.cluster.node_names.clear();
    try {
      return make(at);
    } catch (const Error& error) {
      if (first_reason.empty()) first_reason = error.what();
    }
  }
  throw Error("--sweep " + counts_text + ": no node count of the sweep plans; at " +
              std::to_string(counts.front()) + ": " + first_reason);
}

// Who sets up each task of a Slurm job's steps (docs/launchers.md#without-the-plugin): the plan
// says it, as it says which launcher started trn-run. Nothing where no job's nodes were seen.
const char* const kByPlugin = "spank_trn (plugstack.conf)";
const char* const kByLauncherStep =
    "trn-launcher slurm-task (spank_trn is not in the nodes' plugstack.conf)";

std::string task_environment_line(const RunNodes& nodes) {
  if (!nodes.job_nodes) return "";
  return std::string("task env          ") + (nodes.plugin ? kByPlugin : kByLauncherStep) + "\n";
}

nlohmann::json task_environment_json(const RunNodes& nodes) {
  return nodes.plugin ? "spank_trn" : "trn-launcher slurm-task";
}

}  // namespace

plan::Profile load_run_profile(const RunOptions& options, const run::LaunchEnvironment& launch,
                               const InstallLayout& layout) {
  const auto env_lookup = [](const std::string& name) { return env_value(name); };
  auto profile = plan::load_profile(options.profile,
                                    plan::profile_search_dirs(env_lookup, layout.profile_dirs));
  // SageMaker syncs /opt/ml/checkpoints with S3 and restores it when the job restarts.
  if (launch.launcher == run::Launcher::kSageMaker)
    plan::apply_override(profile, "output_root", "/opt/ml/checkpoints");
  for (const auto& [key, value] : options.flags) plan::apply_override(profile, key, value);
  for (const auto& assignment : options.sets) plan::apply_set_option(profile, assignment);
  return profile;
}

RunPlan plan_run(const RunOptions& options, const RunStart& start, const plan::Profile& profile,
                 const RunNodes& seen) {
  const auto& nodes = seen.nodes;
  const auto& allocation = start.allocation;
  RunPlan run;
  run.spares = static_cast<std::size_t>(profile.spare_nodes);
  if (run.spares > 0 && run.spares >= nodes.size()) {
    throw Error("spare_nodes " + std::to_string(run.spares) + " leaves none of the " +
                std::to_string(nodes.size()) + " node(s) to train on: keep fewer spares " +
                "(--spare-nodes) or submit with more nodes (sbatch --nodes=" +
                std::to_string(nodes.size() + run.spares) + ")");
  }
  if (start.kind == StartKind::kOwnWorkers && run.spares > 0) {
    throw Error("spare_nodes " + std::to_string(run.spares) +
                ": a spare replaces a lost node inside a Slurm job; started by " +
                std::string(run::to_string(start.launch.launcher)) + " (" + start.launch.reason +
                "), trn-run starts each node's workers itself and the platform restarts the "
                "whole job: drop --spare-nodes (or --set spare_nodes=0)");
  }
  // The job's first nodes train, its last `spares` wait to replace a lost one.
  run.job_order = node_names(nodes);
  const auto selection = seen.job_nodes ? run::select_training_nodes(run.job_order, {}, run.spares)
                                        : run::NodeSelection{};
  std::vector<plan::NodeCores> node_cores;
  node_cores.reserve(nodes.size());
  // By position, not name: an agent's or a planned job's nodes share one name.
  for (std::size_t i = 0; i < nodes.size() - run.spares; ++i)
    node_cores.push_back({nodes[i].node, nodes[i].neuron_cores});
  auto& request = run.request;
  request.cluster = plan::cluster_shape_of(
      node_cores, allocation ? std::optional(allocation->job_id) : std::nullopt);
  request.cluster.instance_type = nodes.front().instance_type;
  // Planned away from the nodes: no names to show (the plan names the count and the type).
  if (start.kind == StartKind::kPlanAway) request.cluster.node_names.clear();
  if (options.run_dir) request.run_dir = *options.run_dir;
  request.extra_args = options.trainer_args;
  request.home = env_value("HOME").value_or("");
  const bool own_workers = starts_own_workers(start.launch.launcher);
  request.restarts_by_platform = start.kind == StartKind::kOwnWorkers;
  if (own_workers) {
    request.run_name = own_run_name(start.launch);
    // Every node decides alike: a committed checkpoint is there before any node trains.
    request.run_dir_decides = false;
  }
  request.continues_run = options.resume || (allocation && allocation->restart_count > 0);
  if (start.kind == StartKind::kOwnWorkers && start.launch.launcher == run::Launcher::kLocal &&
      start.launch.run_name.empty() && !options.run_dir && !options.plan_only &&
      start.mode == Mode::kRun) {
    reserve_run_dir(profile, request);
  }
  const auto make = [&](plan::PlanRequest& at) {
    if (own_workers && !at.continues_run) {
      const auto planned = plan::make_plan(profile, at);
      at.continues_run = run::newest_checkpoint(planned.run_dir) >= 0;
    }
    return plan::make_plan(profile, at);
  };
  if (options.forecast.sweep) {
    run.plan = first_plan_of_sweep(*options.forecast.sweep, request, make);
  } else {
    run.plan = make(request);
  }
  run.plan.spare_nodes = selection.spares;
  return run;
}

void check_plan_runs_here(const RunOptions& options, const RunStart& start, const RunNodes& nodes,
                          const RunPlan& run) {
  // A plan whose workers would not fit their device memory fails at its first step, after
  // the compile: said now, --plan included (a sweep plans other node counts: not checked).
  if (!options.forecast.sweep) check_plan_memory(run.plan);
  if (start.kind == StartKind::kSlurmJob && start.allocation && !options.plan_only) {
    const run::NodeNeeds needs{.tasks_per_node = static_cast<unsigned>(run.plan.tasks_per_node),
                               .neuron_devices = run.plan.neuron_devices && !nodes.nodes.empty()
                                                     ? nodes.nodes.front().neuron_devices
                                                     : 0};
    if (const auto shortfall =
            run::allocation_shortfall(*start.allocation, needs, node_names(nodes.nodes));
        !shortfall.empty())
      throw Error(shortfall);
  }
  // A run directory with no room for the run's next checkpoint: before any step, not after.
  if (const auto full = options.plan_only ? "" : run::run_directory_full(run.plan.run_dir);
      !full.empty())
    throw Error(full);
  if (starts_own_workers(start.launch.launcher) && run.plan.launch == plan::LaunchMode::kMpirun &&
      !options.plan_only) {
    throw Error("profile " + options.profile +
                ": launch: mpirun makes the workers one MPI job, which srun --mpi=pmix starts "
                "inside a Slurm job; started by " +
                std::string(run::to_string(start.launch.launcher)) +
                ", trn-run starts them itself without MPI: use --set launch=per-core (each worker "
                "gets RANK, WORLD_SIZE and MASTER_ADDR) or submit with sbatch");
  }
  if (options.run_dir) {
    run::check_run_dir_continues(run.plan.run_dir, run.plan,
                                 (options.resume ? "--resume " : "--run-dir ") + *options.run_dir,
                                 options.resume);
  } else if (run.plan.resume && starts_own_workers(start.launch.launcher)) {
    // A launcher's fixed run name (mpi, a Batch job's retry) resumes by itself: held to what
    // --resume is held to, so that another global batch never continues those checkpoints.
    run::check_run_dir_continues(run.plan.run_dir, run.plan,
                                 "run directory " + run.plan.run_dir.string() +
                                     " (resumed: it holds a committed checkpoint)",
                                 false, "in another folder with --run-dir DIR");
  }
}

int print_plan_or_sweep(const RunOptions& options, const RunStart& start,
                        const plan::Profile& profile, const RunNodes& nodes, const RunPlan& run,
                        const InstallLayout& layout) {
  if (options.forecast.sweep)
    return print_sweep(profile, run.request, run.plan, options.forecast, options.json,
                       layout.trainer_dir);
  std::string why_not;
  const auto setup = plan_forecast(run.plan, options.forecast, why_not);
  const auto memory = plan_memory(run.plan);
  if (options.json) {
    auto doc = plan::to_json(run.plan);
    if (setup) doc["forecast"] = forecast::forecast_json(run.plan, *setup);
    if (memory) doc["memory"] = plan_memory_json(*memory);
    doc["launcher"] = launcher_json(start.launch);
    if (nodes.job_nodes) doc["task_environment"] = task_environment_json(nodes);
    std::cout << doc.dump(2) << '\n';
  } else {
    std::cout << forecast_headline(run.plan, setup, why_not) << '\n'
              << plan::render_plan_text(run.plan) << memory_text(memory)
              << launcher_line(start.launch) << task_environment_line(nodes);
  }
  return kSuccess;
}

std::optional<nlohmann::json> announce_run(const RunOptions& options, const RunStart& start,
                                           const RunNodes& nodes, const plan::Plan& plan) {
  std::filesystem::create_directories(plan.run_dir / "logs");
  auto plan_doc = plan::to_json(plan);
  const auto memory = plan_memory(plan);
  if (memory) plan_doc["memory"] = plan_memory_json(*memory);
  plan_doc["launcher"] = launcher_json(start.launch);
  if (nodes.job_nodes) plan_doc["task_environment"] = task_environment_json(nodes);
  if (start.launch.node_rank == 0)
    write_file_atomically(plan.run_dir / "plan.json", plan_doc.dump(2) + "\n", 0644);
  // The forecast of the plan the job runs: its first line, and results.json's comparison.
  std::string why_not;
  const auto setup = plan_forecast(plan, options.forecast, why_not);
  std::optional<nlohmann::json> predicted;
  if (setup) predicted = forecast::forecast_json(plan, *setup);
  std::cout << forecast_headline(plan, setup, why_not) << '\n'
            << plan::render_plan_text(plan) << memory_text(memory) << launcher_line(start.launch)
            << task_environment_line(nodes);
  const auto run_dir = std::filesystem::absolute(plan.run_dir).lexically_normal().string();
  // --resume of a folder without a committed checkpoint trains from step 0: said, not hidden.
  const bool has_checkpoint = plan.resume && run::newest_checkpoint(plan.run_dir) >= 0;
  const char* const from_scratch = " (it holds no committed checkpoint: training starts at step 0)";
  if (start.kind == StartKind::kOwnWorkers) {
    std::cout << "trn-run: run directory " << run_dir
              << (plan.resume
                      ? (has_checkpoint ? " (resuming from its newest checkpoint)" : from_scratch)
                      : "")
              << '\n'
              << std::flush;
  } else {
    if (options.resume && !has_checkpoint)
      std::cout << "trn-run: --resume " << *options.run_dir << from_scratch << '\n';
    print_how_to_continue(plan, run_dir, start.allocation->nnodes, options.profile);
    if (start.allocation->restart_count > 0) {
      std::cout << "trn-run: restart " << start.allocation->restart_count << ": resuming in "
                << plan.run_dir.string() << '\n';
    }
  }
  return predicted;
}

}  // namespace trn::launcher
