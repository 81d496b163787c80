#include "trn/plan/cluster_shape.hpp"

#include <map>

#include "trn/common/error.hpp"

namespace trn::plan {
namespace {

std::string cores_text(std::int64_t cores) {
  return cores == 0 ? std::string("no Neuron devices") : std::to_string(cores) + " NeuronCores";
}

}  // namespace

ClusterShape cluster_shape_of(const std::vector<NodeCores>& nodes,
                              std::optional<std::uint32_t> job_id) {
  if (nodes.empty()) {
    throw Error("the allocation has no nodes: run inside a Slurm job or give --nodes N");
  }
  // Group nodes by core count, remembering the order groups first appear in.
  std::map<std::int64_t, std::vector<std::string>> groups;
  std::vector<std::int64_t> order;
  for (const auto& node : nodes) {
    auto& members = groups[node.neuron_cores];
    if (members.empty()) order.push_back(node.neuron_cores);
    members.push_back(node.node);
  }
  std::int64_t common = order.front();
  for (const auto cores : order) {
    if (groups[cores].size() > groups[common].size()) common = cores;
  }
  if (groups.size() > 1) {
    std::string odd;
    std::string odd_names;
    for (const auto cores : order) {
      if (cores == common) continue;
      for (const auto& name : groups[cores]) {
        odd += (odd.empty() ? "" : ", ") + name + " (" + cores_text(cores) + ")";
        odd_names += (odd_names.empty() ? "" : ",") + name;
      }
    }
    throw Error("the nodes of the allocation differ: " + std::to_string(groups[common].size()) +
                " of " + std::to_string(nodes.size()) + " show " + cores_text(common) + ", but " +
                odd +
                "; every node must have the same workers: leave the odd nodes out (sbatch "
                "--exclude=" +
                odd_names + ") or ask for one instance type (--constraint)");
  }
  ClusterShape shape;
  shape.nodes = static_cast<std::int64_t>(nodes.size());
  for (const auto& node : nodes) shape.node_names.push_back(node.node);
  shape.neuron_cores_per_node = common;
  shape.job_id = job_id;
  return shape;
}

}  // namespace trn::plan
