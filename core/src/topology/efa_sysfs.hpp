#pragma once

// EFA devices: RDMA devices under <root>/sys/class/infiniband whose PCI function is an Amazon
// EFA (internal). Other RDMA devices (and software ones without a PCI function) are skipped.

#include <filesystem>
#include <vector>

#include "trn/topology/node_topology.hpp"

namespace trn::topology {

std::vector<EfaDevice> read_efa_devices(const std::filesystem::path& root);

}  // namespace trn::topology
