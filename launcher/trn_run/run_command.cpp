#include "run_command.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "batch_host_watch.hpp"
#include "compile_phase.hpp"
#include "health_gate.hpp"
#include "in_job_recovery.hpp"
#include "install_layout.hpp"
#include "mpirun_start.hpp"
#include "own_workers.hpp"
#include "run_nodes.hpp"
#include "run_options.hpp"
#include "run_plan.hpp"
#include "run_start.hpp"
#include "step_setup.hpp"
#include "trn/common/env_value.hpp"
#include "trn/plan/profile.hpp"

namespace trn::launcher {
namespace {

// What the stages of run_command have found so far, in the order they find it.
struct RunContext {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  Mode mode = Mode::kRun;
  RunOptions options;
  InstallLayout layout;
  RunStart start;
  plan::Profile profile;
  RunNodes nodes;
  RunPlan run;
  nlohmann::json phases = nlohmann::json::object();  // what each phase took, for results.json
};

// The compile phase's tiers and tools for the plan.
CompileRequest compile_request(const RunContext& context) {
  CompileRequest compile;
  compile.plan = &context.run.plan;
  // The shared tier: --cache-shared, else what the plugin told the node-facts step (cache_root=).
  compile.tiers =
      cache_tiers(context.options.cache_shared
                      ? context.options.cache_shared
                      : std::optional<std::string>(context.nodes.nodes.front().cache_shared));
  compile.launcher = context.layout.bin_dir / "trn-launcher";
  compile.trn_cache = context.layout.bin_dir / "trn-cache";
  compile.env = step_environment(context.run.plan, context.layout);
  compile.force = context.options.force_compile;
  if (!context.nodes.plugin) {
    // No spank_trn on the nodes: every task sets up its own environment, as the plugin would.
    compile.task_prefix = {
        compile.launcher.string(), "slurm-task", "--fsroot=" + context.nodes.fsroot,
        "--cache-shared=" + (compile.tiers.shared ? compile.tiers.shared->string() : std::string()),
        "--"};
  }
  return compile;
}

// Stages 6 and 7 where trn-run starts its own node's workers: this node pulls, compiles and
// trains; the launcher's retry is the recovery.
int train_own_workers(RunContext& context, const std::optional<nlohmann::json>& predicted) {
  OwnWorkersJob job{&context.run.plan,
                    &context.start.launch,
                    &context.layout,
                    context.nodes.fsroot,
                    context.nodes.this_node,
                    compile_request(context),
                    predicted,
                    context.mode == Mode::kCompile,
                    context.options.profile};
  return train_on_own_workers(job, context.phases, context.started);
}

// Stages 6 and 7 in a Slurm job: every node pulls the cache, compiles in one srun step, then
// trains, both with in-job recovery (spares, requeue).
int train_in_job(RunContext& context, const std::optional<nlohmann::json>& predicted) {
  auto compile = compile_request(context);
  compile.plan = nullptr;  // the plan moves into the job
  const auto& options = context.options;
  TrainingJob job{std::move(context.run.plan),
                  &context.profile,
                  context.run.request,
                  context.nodes.nodes,
                  &context.layout,
                  &*context.start.allocation,
                  context.nodes.fsroot,
                  context.nodes.job_nodes && options.health_check,
                  compile,
                  predicted};
  if (const auto ended = compile_with_recovery(job, context.phases, context.mode == Mode::kCompile))
    return *ended;
  context.phases["before_train_seconds"] = seconds_since(context.started);
  return train_with_recovery(job, context.phases, context.started);
}

}  // namespace

// trn-run and trn-compile as a sequence of stages (docs/architecture.md#trn-run-stages).
int run_command(const std::vector<std::string>& args, Mode mode) {
  RunContext context;
  context.mode = mode;
  context.options = parse_run_options(args, mode);
  context.layout = install_layout();
  const auto& options = context.options;
  context.start =
      resolve_start(options, mode, [](const std::string& name) { return env_value(name); });
  const auto& start = context.start;
  if (start.kind == StartKind::kMpiLauncher) return start_on_every_host(args, context.layout);
  context.profile = load_run_profile(options, start.launch, context.layout);
  const auto facts_started = std::chrono::steady_clock::now();
  context.nodes = gather_run_nodes(options, start, context.profile, context.layout);
  context.phases["node_facts_seconds"] = seconds_since(facts_started);
  context.run = plan_run(options, start, context.profile, context.nodes);
  if (start.kind == StartKind::kCompileAgent) {
    return compile_agent(
        compile_task_command(context.run.plan, context.layout.bin_dir / "trn-launcher"),
        step_environment(context.run.plan, context.layout), compile_mode(context.run.plan));
  }
  check_plan_runs_here(options, start, context.nodes, context.run);
  if (options.plan_only)
    return print_plan_or_sweep(options, start, context.profile, context.nodes, context.run,
                               context.layout);
  if (start.kind == StartKind::kSlurmJob && mode == Mode::kRun && context.nodes.job_nodes) {
    std::vector<std::string> job_nodes;
    for (const auto& node : context.nodes.nodes) job_nodes.push_back(node.node);
    start_batch_host_watch(*start.allocation, job_nodes, context.run.plan, context.layout);
  }
  if (start.kind == StartKind::kSlurmJob && options.health_check) {
    if (const auto ended = gate_job_health(start, context.nodes, context.profile, context.layout,
                                           context.run, context.phases))
      return *ended;
  }
  if (mode == Mode::kCompile) {
    // Nothing to compile leaves nothing behind: no run directory, no plan.json.
    if (const auto ended = nothing_to_compile(context.run.plan,
                                              step_environment(context.run.plan, context.layout)))
      return *ended;
  }
  const auto predicted = announce_run(options, start, context.nodes, context.run.plan);
  context.phases["plan_seconds"] = seconds_since(context.started);
  if (start.kind == StartKind::kOwnWorkers) return train_own_workers(context, predicted);
  return train_in_job(context, predicted);
}

}  // namespace trn::launcher
