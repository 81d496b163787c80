#include "trn/topology/node_topology.hpp"

#include "trn/topology/instance_facts.hpp"

namespace trn::topology {

const NeuronDevice* NodeTopology::device(unsigned index) const {
  for (const auto& d : devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

const NumaNode* NodeTopology::numa_node(unsigned os_index) const {
  for (const auto& n : numa_nodes) {
    if (n.os_index == os_index) return &n;
  }
  return nullptr;
}

bool NodeTopology::offers_logical_nc_config() const {
  if (devices.empty()) return false;
  const auto* facts = facts_of_device(devices.front().device_name);
  return facts != nullptr && facts->lnc_values.size() > 1;
}

}  // namespace trn::topology
