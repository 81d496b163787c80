#include "compile_phase.hpp"

#include <chrono>
#include <iostream>
#include <map>

#include "common/exit_codes.hpp"
#include "step_nodes.hpp"
#include "trn/cache/compile_mode.hpp"
#include "trn/cache/compiler_version.hpp"
#include "trn/cache/layout.hpp"
#include "trn/cache/manifest.hpp"
#include "trn/cache/npc_summary.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/neuron_tool_path.hpp"
#include "trn/common/process.hpp"
#include "trn/common/text_file.hpp"
#include "trn/plan/plan_report.hpp"
#include "trn/plan/task_command.hpp"
#include "trn/run/failure_diagnosis.hpp"

namespace trn::launcher {
cache::CompileMode compile_mode(const plan::Plan& plan) {
  return cache::compile_mode_of(plan.command, plan.neuron_devices,
                                plan.worker_cores == plan::WorkerCores::kPerWorker);
}

namespace {

// neuron_parallel_compile on `path` (a PATH value), else where the Neuron SDK installs it.
std::optional<std::filesystem::path> find_neuron_parallel_compile(const std::string& path) {
  return find_neuron_tool("neuron_parallel_compile", path);
}

// neuron_parallel_compile on the steps' PATH (the training environment's bin folder first);
// none on CPU or GPU nodes; on a Neuron node its absence is an error: training would compile
// every graph on every worker at its first step, or fail there.
std::optional<std::filesystem::path> installed_compiler(
    const plan::Plan& plan, const std::map<std::string, std::string>& env) {
  const auto step_path = env.find(std::string(trn::env::kPath));
  auto compiler = find_neuron_parallel_compile(
      step_path != env.end() ? step_path->second : env_value(trn::env::kPath).value_or(""));
  if (!compiler && plan.neuron_devices) {
    throw Error(
        "neuron_parallel_compile is not installed on this Neuron node (not on PATH, not in "
        "/opt/aws/neuron/bin): it comes with torch-neuronx; install the training environment "
        "(pcluster-configs/install/trn-slurm-install.sh) or put its bin directory on PATH");
  }
  return compiler;
}

// The installed compiler's version (it names the cache's neuronxcc-<version> folder), or
// "unknown" when neuronx-cc is not on PATH.
std::string compiler_version() {
  try {
    const auto probe =
        capture_process({"neuronx-cc", "--version"}, {.stderr_to = StderrTo::kOutput});
    if (auto version = cache::parse_compiler_version(probe.output)) return *version;
  } catch (const Error&) {
  }
  return "unknown";
}

// What makes compiled graphs reusable: the job-independent plan inputs, with the same compiler
// and flags. A warm-up's graphs are TorchNeuron's, not neuron_parallel_compile's: the mode is
// part of the key, so neither path's manifest ever stands for the other's graphs.
nlohmann::json compile_configuration(const plan::Plan& plan) {
  auto configuration = plan::compile_inputs(plan);
  configuration["compiler_version"] = compiler_version();
  configuration["neuron_cc_flags"] = env_value(trn::env::kNeuronCcFlags).value_or("");
  if (const auto mode = compile_mode(plan); mode != cache::CompileMode::kNeuronParallelCompile) {
    configuration["compile"] = std::string(cache::to_string(mode));
    // TorchNeuron's NEFF key holds the optimisation level, but not the compiler's version
    // (docs/hardware.md#torchneuron-cache): the manifest holds both.
    configuration["neuron_compiler_opt_level"] =
        env_value(cache::compiler_opt_level_variable).value_or("");
  }
  return configuration;
}

// The compile step's log of each node: compile_<node>_<node count>.log (srun's %N), per node
// count.
std::string compile_log_prefix() { return "compile_"; }
std::string compile_log_suffix(const plan::Plan& plan) {
  return "_" + std::to_string(plan.nodes) + ".log";
}

// Writes the manifest that lets the next run with this configuration skip its compile phase.
void record_compiled(const CompileRequest& request, const std::string& key,
                     const nlohmann::json& configuration, const nlohmann::json& summary) {
  cache::write_manifest(
      request.tiers.shared.value_or(request.tiers.local), key,
      {{"configuration", configuration}, {"profile", request.plan->profile}, {"summary", summary}});
}

// Every node copies its new local entries to the shared tier (TorchNeuron's NEFFs with `neffs`,
// else the neuronx-cc layout's); false when the step failed.
bool push_to_shared(const CompileRequest& request, bool neffs) {
  auto push = one_task_per_node(request);
  push.insert(push.end(), {request.trn_cache.string(), "push"});
  if (neffs) push.insert(push.end(), {"--layout", "torchneuron"});
  push.insert(push.end(), {"--to", request.tiers.shared->string()});
  if (run_process(push, {.extra_env = request.env}) == 0) return true;
  std::cout << "trn-run: warning: pushing new cache entries to " << request.tiers.shared->string()
            << " failed\n";
  return false;
}

// A compile phase's graphs are published: pushed to the shared tier (when there is one), and only
// then recorded by the manifest, so a run that skips its compile phase for this manifest finds
// the graphs it stands for. A failed push records nothing: the next run compiles again.
void publish_compiled(const CompileRequest& request, const std::string& key,
                      const nlohmann::json& configuration, const nlohmann::json& summary,
                      bool neffs) {
  if (!request.tiers.shared || push_to_shared(request, neffs))
    record_compiled(request, key, configuration, summary);
}

// This plan's configuration of compiled graphs and the key of its manifest, which lies in the
// shared tier, else the node's.
// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's noexcept move asserts its invariant
struct CompiledConfiguration {
  nlohmann::json configuration;
  std::string key;
  std::filesystem::path manifest_root;
  bool recorded = false;  // a manifest records it: the compile phase has nothing to do
};
CompiledConfiguration compiled_configuration(const CompileRequest& request) {
  CompiledConfiguration compiled;
  compiled.configuration = compile_configuration(*request.plan);
  compiled.key = cache::manifest_key(compiled.configuration);
  compiled.manifest_root = request.tiers.shared.value_or(request.tiers.local);
  compiled.recorded = cache::has_manifest(compiled.manifest_root, compiled.key);
  return compiled;
}

// The compile step's srun: one task per node, each node's output in logs/compile_<node>_<n>.log,
// then `srun_options`, the plugin's task prefix and `task`.
std::vector<std::string> compile_step_argv(const CompileRequest& request,
                                           const std::vector<std::string>& srun_options,
                                           const std::vector<std::string>& task) {
  const auto& plan = *request.plan;
  auto argv = one_task_per_node(request);
  argv.emplace_back("--label");
  argv.insert(argv.end(), srun_options.begin(), srun_options.end());
  argv.push_back(
      "--output=" +
      (plan.run_dir / "logs" / (compile_log_prefix() + "%N" + compile_log_suffix(plan))).string());
  argv.insert(argv.end(), request.task_prefix.begin(), request.task_prefix.end());
  argv.insert(argv.end(), task.begin(), task.end());
  return argv;
}

// compile.json: the phase's report with its duration since `started`.
void write_compile_report(const plan::Plan& plan, nlohmann::json& report,
                          std::chrono::steady_clock::time_point started) {
  report["seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  write_file_atomically(plan.run_dir / "compile.json", report.dump(2) + "\n", 0644);
}

// The native path's compile phase (docs/hardware.md#torchneuron-cache): the training command for
// compile_steps steps on every node, with TRN_COMPILE_WARMUP=1, so that torch.compile(backend=
// "neuron") compiles every graph of a step into each node's NEFF cache; then the new NEFFs go to
// the shared tier and a manifest records it. Skipped when the manifest is there already.
CompilePhaseResult warm_up(const CompileRequest& request) {
  const auto& plan = *request.plan;
  CompilePhaseResult result;
  const auto mode = std::string(cache::to_string(cache::CompileMode::kWarmUp));
  const auto compiled = compiled_configuration(request);
  const auto& key = compiled.key;
  if (!request.force && compiled.recorded) {
    std::cout << "trn-run: warm-up skipped: "
              << cache::manifest_path(compiled.manifest_root, key).string()
              << " records this configuration's graphs as compiled (--force-compile to warm up "
                 "again)\n";
    result.report = {{"mode", mode}, {"skipped", "manifest"}, {"manifest", key}};
    return result;
  }
  const auto started = std::chrono::steady_clock::now();
  const auto log_dir = plan.run_dir / "logs";
  // A rank that fails leaves the others of its world waiting in a collective: end them too.
  const auto argv = compile_step_argv(request, {"--kill-on-bad-exit=1"},
                                      compile_task_command(plan, request.launcher));
  auto env = request.env;
  env[std::string(trn::env::kTrnCompileWarmup)] = "1";
  std::cout << "trn-run: warming up the compile cache: " << plan.compile_steps << " steps on "
            << plan.nodes << " nodes (torch.compile(backend=\"neuron\") fills each node's NEFF "
            << "cache)\n"
            << std::flush;
  const int status = run_process(argv, {.extra_env = env});
  result.ok = status == 0;
  result.report = {{"mode", mode},
                   {"outcome", result.ok ? "compiled" : "failed"},
                   {"ok", result.ok},
                   {"exit_status", status},
                   {"steps", plan.compile_steps},
                   {"manifest", key}};
  if (!result.ok) {
    result.message = "compilation failed: the warm-up run of " +
                     std::to_string(plan.compile_steps) + " steps exited with " +
                     std::to_string(status) + " (logs: " + log_dir.string() + "/compile_*)";
  } else {
    publish_compiled(request, key, compiled.configuration, result.report, /*neffs=*/true);
  }
  write_compile_report(plan, result.report, started);
  if (result.ok) std::cout << "trn-run: warm-up done\n";
  return result;
}

}  // namespace

std::vector<std::string> one_task_per_node(const CompileRequest& request) {
  if (!request.starter.empty()) return request.starter;
  const auto& plan = *request.plan;
  const bool overlap = request.overlap;
  const auto nodes = std::to_string(plan.nodes);
  std::vector<std::string> argv = {"srun", "--nodes=" + nodes, "--ntasks=" + nodes,
                                   "--ntasks-per-node=1"};
  if (overlap) argv.emplace_back("--overlap");
  for (auto& option : srun_node_selection(plan)) argv.push_back(std::move(option));
  return argv;
}

CacheTiers cache_tiers(const std::optional<std::string>& shared_option) {
  CacheTiers tiers;
  if (shared_option && !shared_option->empty())
    tiers.shared = *shared_option;
  else if (const auto shared = env_value(trn::env::kTrnCacheShared); shared && !shared->empty())
    tiers.shared = *shared;
  tiers.local = cache::compiler_cache_root(env_value(trn::env::kNeuronCcFlags),
                                           env_value(trn::env::kNeuronCompileCacheUrl));
  return tiers;
}

nlohmann::json pull_cache(const CompileRequest& request) {
  if (!request.tiers.shared) {
    std::cout << "trn-run: cache pull skipped: no shared cache tier (set cache_root= in the plugin "
                 "or pass --cache-shared DIR)\n";
    return {{"skipped", "no shared tier"}};
  }
  if (!std::filesystem::is_directory(*request.tiers.shared)) {
    std::cout << "trn-run: cache pull skipped: the shared tier " << request.tiers.shared->string()
              << " does not exist yet (the first compile fills it)\n";
    return {{"skipped", "shared tier missing"}};
  }
  // One report per node, in a file of its own: trn-cache prints a multi-line JSON document.
  // Several nodes spread the shared tier down a tree (node 0 reads it once), so N nodes do not
  // read it N times (docs/hardware.md#cache-spread); a starter given in place of srun (trn-run
  // starting its own node's workers) runs one node's plain pull.
  // The native path's graphs are TorchNeuron's NEFFs, which trn-cache pulls in their own layout
  // (the spread streams the neuronx-cc layout only).
  const bool neffs = compile_mode(*request.plan) == cache::CompileMode::kWarmUp;
  const auto log_dir = request.plan->run_dir / "logs";
  auto argv = one_task_per_node(request);
  const bool spread =
      !neffs && request.spread_tree && request.starter.empty() && request.plan->nodes > 1;
  argv.insert(argv.end(), {"--output=" + (log_dir / "pull_%N.json").string(),
                           request.trn_cache.string(), spread ? "spread" : "pull"});
  if (neffs) argv.insert(argv.end(), {"--layout", "torchneuron"});
  argv.insert(argv.end(), {"--from", request.tiers.shared->string(), "--json"});
  const auto started = std::chrono::steady_clock::now();
  if (const int status = run_process(argv, {.extra_env = request.env}); status != 0) {
    std::cout << "trn-run: warning: cache pull failed (exit " << status
              << "); compiling what is missing\n";
    return {{"failed", status}};
  }
  nlohmann::json nodes = nlohmann::json::array();
  std::uintmax_t entries = 0;
  std::uintmax_t bytes = 0;
  std::uintmax_t shared_tier_bytes = 0;
  for (const auto& file : std::filesystem::directory_iterator(log_dir)) {
    const auto name = file.path().filename().string();
    if (!name.starts_with("pull_") || !name.ends_with(".json")) continue;
    const auto report = nlohmann::json::parse(
        read_text(file.path(), "it is the cache pull report of one node"), nullptr, false);
    if (report.is_discarded() || !report.contains("copied")) continue;
    entries += report["copied"].value("entries", std::uintmax_t{0});
    bytes += report["copied"].value("bytes", std::uintmax_t{0});
    shared_tier_bytes += report.contains("spread")
                             ? report["spread"].value("shared_tier_bytes", std::uintmax_t{0})
                             : report["copied"].value("bytes", std::uintmax_t{0});
    nodes.push_back(report);
  }
  std::cout << "trn-run: cache pull from " << request.tiers.shared->string() << ": " << entries
            << " entries, " << bytes << " bytes copied over " << nodes.size() << " nodes ("
            << shared_tier_bytes << " bytes read from the shared tier"
            << (spread ? ", spread node to node" : "") << ")\n";
  return {{"entries_copied", entries},
          {"bytes_copied", bytes},
          {"shared_tier_bytes", shared_tier_bytes},
          {"spread", spread},
          {"layout", neffs ? "torchneuron" : "neuronx-cc"},
          {"seconds",
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()},
          {"nodes", nodes}};
}

std::optional<int> pull_and_compile(const CompileRequest& request, nlohmann::json& phases,
                                    bool compile_only) {
  phases["cache_pull"] = pull_cache(request);
  const auto compiled = compile_phase(request);
  phases["compile"] = compiled.report;
  if (!compiled.ok) {
    std::cerr << "trn-run: " << compiled.message << "; not training\n";
    return kCompileFailed;
  }
  if (compile_only) return kSuccess;
  return std::nullopt;
}

CompilePhaseResult compile_phase(const CompileRequest& request) {
  const auto& plan = *request.plan;
  CompilePhaseResult result;
  switch (compile_mode(plan)) {
    case cache::CompileMode::kWarmUp:
      return warm_up(request);
    case cache::CompileMode::kNone:
      std::cout << "trn-run: compile phase skipped: the native path on CPU or GPU workers "
                   "compiles nothing for Neuron ahead of training\n";
      result.report = {{"skipped", "native path without Neuron"}};
      return result;
    case cache::CompileMode::kNeuronParallelCompile:
      break;
  }
  const auto compiler = installed_compiler(plan, request.env);
  if (!compiler) {
    std::cout << "trn-run: neuron_parallel_compile is not installed: compile phase skipped (CPU or "
                 "GPU run)\n";
    result.report = {{"skipped", "neuron_parallel_compile not installed"}};
    return result;
  }
  const auto compiled = compiled_configuration(request);
  const auto& key = compiled.key;
  if (!request.force && compiled.recorded) {
    std::cout << "trn-run: compile skipped: "
              << cache::manifest_path(compiled.manifest_root, key).string()
              << " records this configuration as compiled (--force-compile to compile again)\n";
    result.report = {{"skipped", "manifest"}, {"manifest", key}};
    return result;
  }
  const auto started = std::chrono::steady_clock::now();
  const auto log_dir = plan.run_dir / "logs";
  const auto prefix = compile_log_prefix();
  const auto suffix = compile_log_suffix(plan);
  auto agent = std::vector<std::string>{request.launcher.string(), "compile-agent", "--"};
  const auto task = compile_task_command(plan, request.launcher);
  agent.insert(agent.end(), task.begin(), task.end());
  const auto argv = compile_step_argv(request, {}, agent);
  std::cout << "trn-run: compiling with " << compiler->string() << " on " << plan.nodes
            << " nodes (" << plan.compile_steps << " steps)\n"
            << std::flush;
  const int status = run_process(argv, {.extra_env = request.env});

  // Every node's neuron_parallel_compile output, labels removed, read for its summary.
  std::string output;
  std::map<std::string, std::string> output_of_node;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) continue;
    auto& node_output =
        output_of_node[name.substr(prefix.size(), name.size() - prefix.size() - suffix.size())];
    for (const auto& rank :
         run::split_labelled_output(read_text(entry.path(), "it is one node's compile log"), name))
      node_output += rank.text;
    output += node_output;
  }
  // Under srun each of the plan's nodes writes compile_<its Slurm name>: one without its
  // compiler's ending was lost or killed mid-compile, whatever srun's exit says.
  if (request.starter.empty()) {
    for (const auto& node : plan.node_list) {
      if (!cache::npc_run_ended(cache::parse_npc_output(output_of_node[node])))
        result.unfinished_nodes.push_back(node);
    }
  }
  const auto interpreted = cache::interpret_npc_run(output, status);
  result.ok = interpreted.ok() && result.unfinished_nodes.empty();
  result.report = cache::to_json(interpreted);
  result.report["manifest"] = key;
  if (!result.unfinished_nodes.empty()) {
    result.report["outcome"] = "unfinished";
    result.report["unfinished_nodes"] = result.unfinished_nodes;
  }
  write_compile_report(plan, result.report, started);
  if (!result.ok) {
    std::string unfinished;
    for (const auto& node : result.unfinished_nodes)
      unfinished += (unfinished.empty() ? "" : ", ") + node;
    result.message = "compilation failed: " +
                     (unfinished.empty() ? interpreted.message
                                         : "neuron_parallel_compile did not finish on " +
                                               unfinished + " (no summary in its log; srun exit " +
                                               std::to_string(status) + ")") +
                     " (logs: " + log_dir.string() + "/compile_*)";
    return result;
  }
  publish_compiled(request, key, compiled.configuration, result.report, /*neffs=*/false);
  std::cout << "trn-run: compile done: " << interpreted.message << '\n';
  return result;
}

std::vector<std::string> compile_task_command(const plan::Plan& plan,
                                              const std::filesystem::path& launcher) {
  // One agent per node drives all of the node's workers, as the reference `srun
  // neuron_parallel_compile ./run.sh` with torchrun inside it does.
  return plan::task_command(plan.compile_command, plan.workers_per_node,
                            plan::worker_prefix(plan, launcher));
}

std::optional<int> nothing_to_compile(const plan::Plan& plan,
                                      const std::map<std::string, std::string>& env) {
  switch (compile_mode(plan)) {
    case cache::CompileMode::kWarmUp:
      return std::nullopt;  // the warm-up needs no neuron_parallel_compile
    case cache::CompileMode::kNone:
      std::cout << "trn-compile: the native path on CPU or GPU workers: nothing to compile for "
                   "Neuron ahead of training\n";
      return kSuccess;
    case cache::CompileMode::kNeuronParallelCompile:
      break;
  }
  if (installed_compiler(plan, env)) return std::nullopt;
  std::cout << "trn-compile: neuron_parallel_compile is not installed: nothing to compile on these "
               "CPU or GPU nodes (they compile nothing ahead of training)\n";
  return kSuccess;
}

int compile_agent(const std::vector<std::string>& task_command,
                  const std::map<std::string, std::string>& env, cache::CompileMode mode) {
  if (mode == cache::CompileMode::kWarmUp) {
    // The node's share of the warm-up: its workers, told it is one.
    auto warm_up_env = env;
    warm_up_env[std::string(trn::env::kTrnCompileWarmup)] = "1";
    return run_process(task_command, {.extra_env = warm_up_env});
  }
  const auto compiler = find_neuron_parallel_compile(env_value(trn::env::kPath).value_or(""));
  if (!compiler) {
    std::cerr << "trn-compile: neuron_parallel_compile is not installed on this node\n";
    return kBadInput;
  }
  std::vector<std::string> argv = {compiler->string()};
  argv.insert(argv.end(), task_command.begin(), task_command.end());
  return run_process(argv, {.extra_env = env});
}

}  // namespace trn::launcher
