#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compile_phase.hpp"
#include "install_layout.hpp"
#include "node_facts.hpp"
#include "trn/plan/plan.hpp"
#include "trn/plan/profile.hpp"
#include "trn/run/slurm_allocation.hpp"

namespace trn::launcher {

// What the training phase needs to plan again after a node is swapped.
struct TrainingJob {
  plan::Plan plan;
  const plan::Profile* profile = nullptr;
  plan::PlanRequest request;
  std::vector<NodeFacts> nodes;  // every node of the job, in its order
  const InstallLayout* layout = nullptr;
  const run::SlurmAllocation* allocation = nullptr;
  std::string fsroot;
  bool health_check = true;  // look for a failed node with trn-health when nothing else names one
  // The compile cache's tiers and tools: a spare swapped in pulls the shared tier's graphs into
  // its node-local tier before training there, so that nothing recompiles.
  CompileRequest cache;
  // The plan's forecast (forecast::forecast_json), compared in results.json with what the run
  // measured; none without a forecast.
  std::optional<nlohmann::json> forecast;
  // The compile phase's restarts on spares: they count toward max_restarts with training's.
  unsigned compile_restarts = 0;
};

// Phases 1 and 2 in a Slurm job (pull_and_compile), recovering inside the allocation: when the
// compile step fails because a node of it was lost (it no longer answers), that node is drained,
// a spare takes its place and the compile runs again, its stale locks cleared first; without a
// spare the job is requeued (docs/recovery.md#fault-matrix). A compile that fails on live nodes
// ends the run (kCompileFailed). Returns an exit code when the run ends here (`compile_only`:
// trn-compile), none when training follows; the recoveries go into phases["recoveries"].
std::optional<int> compile_with_recovery(TrainingJob& job, nlohmann::json& phases,
                                         bool compile_only);

// Trains, watching the ranks (train_phase), and recovers inside the allocation: a lost, hung
// or failed node is drained and replaced by a spare and training starts again from the newest
// checkpoint, up to max_restarts times; without a spare the job is requeued as before
// (docs/recovery.md). Writes results.json's phases and recoveries; returns trn-run's exit code.
int train_with_recovery(TrainingJob& job, nlohmann::json& phases,
                        std::chrono::steady_clock::time_point started);

}  // namespace trn::launcher
