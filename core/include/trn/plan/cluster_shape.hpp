#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trn::plan {

// What the plan needs to know about the allocation (or, outside Slurm, the planned one).
struct ClusterShape {
  std::int64_t nodes = 0;
  std::vector<std::string> node_names;     // empty when planning without an allocation
  std::int64_t neuron_cores_per_node = 0;  // 0: the nodes have no Neuron devices
  std::string instance_type;               // the nodes' EC2 type; "": unknown
  std::optional<std::uint32_t> job_id;     // the Slurm job, if any
};

// One node of an allocation and the NeuronCores its topology shows (0 without devices).
struct NodeCores {
  std::string node;
  std::int64_t neuron_cores = 0;
};

// The shape of an allocation whose nodes were each inspected. Every node must show the same
// number of NeuronCores: otherwise a trn::Error names the odd nodes (those outside the largest
// group) and how to leave them out.
ClusterShape cluster_shape_of(const std::vector<NodeCores>& nodes,
                              std::optional<std::uint32_t> job_id = std::nullopt);

}  // namespace trn::plan
