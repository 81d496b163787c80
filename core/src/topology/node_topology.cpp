#include "trn/topology/node_topology.hpp"

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
  return !devices.empty() &&
         (devices.front().device_name == "Trainium2" || devices.front().device_name == "Trainium3");
}

}  // namespace trn::topology
