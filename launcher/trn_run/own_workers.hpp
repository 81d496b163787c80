#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compile_phase.hpp"
#include "install_layout.hpp"
#include "trn/plan/plan.hpp"
#include "trn/run/launch_environment.hpp"

namespace trn::launcher {

// trn-launcher node-workers with this node's place among the launcher's nodes: what starts
// `tasks` tasks here where srun would start them on every node.
std::vector<std::string> node_workers_starter(const InstallLayout& layout,
                                              const run::LaunchEnvironment& launch, unsigned tasks,
                                              const std::string& fsroot);

// A run whose trn-run starts its own node's workers (docs/launchers.md#own-workers): one trn-run
// on each node, started by the launcher (a single instance, AWS Batch, SageMaker, mpirun).
struct OwnWorkersJob {
  const plan::Plan* plan = nullptr;
  const run::LaunchEnvironment* launch = nullptr;
  const InstallLayout* layout = nullptr;
  std::string fsroot;
  std::string this_node;
  CompileRequest compile;  // tiers and tools; the starter is set here
  std::optional<nlohmann::json> forecast;
  bool compile_only = false;  // trn-compile
  std::string profile;        // PROFILE as given on the command line, for the advice it prints
};

// Every node pulls the cache, compiles (all nodes together, as the srun step does) and trains;
// the main node writes results.json. Nothing restarts here: a failure that is not the same
// error on every rank exits kNodeFailure, which the platform's retry restarts, and the new run
// resumes from the run directory's newest checkpoint. Returns trn-run's exit code.
int train_on_own_workers(const OwnWorkersJob& job, nlohmann::json& phases,
                         std::chrono::steady_clock::time_point started);

}  // namespace trn::launcher
