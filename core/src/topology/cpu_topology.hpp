#pragma once

// CPUs, physical cores (with their hyperthread siblings) and NUMA nodes, read by hwloc's Linux
// backend from the same filesystem root as the devices (internal).

#include <filesystem>
#include <vector>

#include "trn/topology/node_topology.hpp"

namespace trn::topology {

struct CpuTopology {
  std::vector<NumaNode> numa_nodes;
  std::vector<CpuCore> cores;
  IdList cpus;
};

CpuTopology read_cpu_topology(const std::filesystem::path& root);

}  // namespace trn::topology
