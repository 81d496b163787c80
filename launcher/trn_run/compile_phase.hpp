#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trn/cache/compile_mode.hpp"
#include "trn/plan/plan.hpp"

namespace trn::launcher {

struct CacheTiers {
  std::optional<std::filesystem::path> shared;  // e.g. /fsx/neuron-cache; none: no pull/push
  std::filesystem::path local;                  // the compiler's cache on each node
};

// How this plan fills the compile cache: the profile's worker command and whether its workers are
// TorchNeuron's (worker_cores per-worker) decide (trn/cache/compile_mode.hpp).
cache::CompileMode compile_mode(const plan::Plan& plan);

// The shared tier given (empty: none), else TRN_CACHE_SHARED; the local tier as the compiler
// finds it.
CacheTiers cache_tiers(const std::optional<std::string>& shared_option);

struct CompileRequest {
  const plan::Plan* plan = nullptr;
  CacheTiers tiers;
  std::filesystem::path launcher;  // trn-launcher, for the per-node agents
  std::filesystem::path trn_cache;
  std::map<std::string, std::string> env;
  bool force = false;
  // srun --overlap: the steps may start beside one that still holds the nodes (in-job recovery:
  // a step stopped because a node was lost is not cleaned up until Slurm marks the node down).
  bool overlap = false;
  // What starts one task on each node instead of srun: trn-launcher node-workers on a node
  // that starts its own workers (docs/launchers.md#own-workers); empty: srun.
  std::vector<std::string> starter;
  // What each srun task of the compile and training steps runs its command behind where
  // spank_trn does not set the tasks up (trn-launcher slurm-task ... --); empty: nothing.
  std::vector<std::string> task_prefix;
  // The shared tier spread down a tree of the nodes (trn-cache spread) rather than pulled by
  // every node: on the job's first pull, where every node may lack the graphs.
  bool spread_tree = true;
};

// The start of a command that runs one task on each of the plan's nodes: srun (with --overlap
// when asked), or the request's starter.
std::vector<std::string> one_task_per_node(const CompileRequest& request);

// Phases 1 and 2 of a run, reported in `phases` (cache_pull, compile): an exit code when the run
// ends here (compilation failed, or `compile_only`: trn-compile), none when training follows.
std::optional<int> pull_and_compile(const CompileRequest& request, nlohmann::json& phases,
                                    bool compile_only);

// Phase 1: every node copies complete entries from the shared tier. Returns the JSON report.
nlohmann::json pull_cache(const CompileRequest& request);

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's noexcept move asserts its invariant
struct CompilePhaseResult {
  bool ok = true;
  nlohmann::json report;  // also written to <run_dir>/compile.json when a compile ran
  std::string message;    // for the user when !ok
  // The plan's nodes whose compiler did not run to its end (no summary in their log): lost, or
  // killed with the step. A compile step that leaves one unfinished is not ok.
  std::vector<std::string> unfinished_nodes;
};

// Phase 2: neuron_parallel_compile on every node (one agent per node), unless absent or the
// shared tier's manifest records this exact configuration; then push new entries. On the native
// path (trn/cache/compile_mode.hpp) a warm-up run of the training command takes its place.
CompilePhaseResult compile_phase(const CompileRequest& request);

// The per-node agent (srun trn-compile inside a step): runs neuron_parallel_compile around the
// node's task command (on the native path: the task command as a warm-up) and returns its exit
// status.
int compile_agent(const std::vector<std::string>& task_command,
                  const std::map<std::string, std::string>& env,
                  cache::CompileMode mode = cache::CompileMode::kNeuronParallelCompile);

// trn-compile where neuron_parallel_compile is not installed (on the step's PATH `env`, or
// /opt/aws/neuron/bin): exit 0 with one line on CPU or GPU nodes (nothing to compile), before
// any run directory is made; trn::Error on Neuron nodes. None when it is installed.
std::optional<int> nothing_to_compile(const plan::Plan& plan,
                                      const std::map<std::string, std::string>& env);

// What one node's compile agent runs under neuron_parallel_compile, or each node of the native
// path's warm-up: all of the node's workers (`launcher`: trn-launcher, for worker_cores:
// per-worker).
std::vector<std::string> compile_task_command(const plan::Plan& plan,
                                              const std::filesystem::path& launcher);

}  // namespace trn::launcher
