#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace trn::launcher {

// What the plan needs to know about one node.
struct NodeFacts {
  std::string node;
  std::int64_t node_id = 0;  // SLURM_NODEID: the node's place in the job (0 holds rank 0)
  std::string instance_type;
  std::int64_t neuron_devices = 0;
  std::int64_t neuron_cores = 0;  // logical NeuronCores a step can use
  std::int64_t cpus = 0;
  bool plugin_active = false;  // spank_trn set up this node's step (it exports TRN_INSTANCE_TYPE)
  std::string cache_shared;    // TRN_CACHE_SHARED as the plugin set it (its cache_root=)
  std::string fsroot = "/";    // the tree the facts were read from (with %n where given)
};

NodeFacts local_node_facts(const std::filesystem::path& fsroot);
nlohmann::json to_json(const NodeFacts& facts);
NodeFacts node_facts_from_json(const nlohmann::json& json);

// Runs `trn-launcher node-facts` once on every node of the allocation (one srun step); the
// result is in the job's node order. Each node reads `fsroot`, else the tree spank_trn set the
// step up from (TRN_FSROOT), else its own root.
std::vector<NodeFacts> gather_node_facts(const std::filesystem::path& launcher, unsigned nnodes,
                                         const std::optional<std::string>& fsroot);

// All nodes must look alike, and spank_trn must run on each (it gives every task its rank and
// rendezvous): an error naming the odd nodes otherwise.
// The nodes' names, in the job's order.
std::vector<std::string> node_names(const std::vector<NodeFacts>& nodes);

void check_uniform(const std::vector<NodeFacts>& nodes);

// Whether spank_trn set up the tasks of every node (true) or of none (false: trn-run's tasks
// then start through trn-launcher slurm-task, docs/launchers.md#without-the-plugin). Some nodes
// with it and some without is a cluster set up by halves: trn::Error naming the nodes without.
bool plugin_on_every_node(const std::vector<NodeFacts>& nodes);

}  // namespace trn::launcher
