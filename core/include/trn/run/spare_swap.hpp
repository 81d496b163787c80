#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trn::run {

// The job's nodes split into the ones that train and the spares kept idle (in the job's order).
struct NodeSelection {
  std::vector<std::string> nodes;
  std::vector<std::string> spares;
};

// The first nodes of `job_order` that are not `unhealthy` train, `spares_wanted` healthy ones
// after them wait; with fewer healthy nodes than that, every healthy node trains and none waits
// (the plan then decides whether that many nodes work).
NodeSelection select_training_nodes(const std::vector<std::string>& job_order,
                                    const std::vector<std::string>& unhealthy,
                                    std::size_t spares_wanted);

// The training nodes after lost ones are replaced by spares (docs/recovery.md#spares).
struct NodeSwap {
  std::vector<std::string> nodes;   // in the job's node order: Slurm numbers the ranks so
  std::vector<std::string> spares;  // the spares still idle
  std::vector<std::pair<std::string, std::string>> replaced;  // lost node -> its spare
};

// `nodes` with every node of `lost` replaced by a spare (the first ones, in order), the world's
// size unchanged; lost spares are dropped from the spares. nullopt when there are fewer spares
// than lost training nodes. `job_order`: every node of the job, in Slurm's order.
std::optional<NodeSwap> swap_in_spares(const std::vector<std::string>& job_order,
                                       const std::vector<std::string>& nodes,
                                       const std::vector<std::string>& spares,
                                       const std::vector<std::string>& lost);

}  // namespace trn::run
