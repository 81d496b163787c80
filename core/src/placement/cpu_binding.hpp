#pragma once

// Choosing each task's CPUs (internal).

#include <string>
#include <vector>

#include "trn/placement/placement.hpp"

namespace trn::placement {

// Fills TaskPlacement::cpus for every task (numa_nodes must already be set).
void bind_cpus(const topology::NodeTopology& topology, BindMode mode, const IdList& allowed,
               std::vector<TaskPlacement>& tasks, std::vector<std::string>& notes);

}  // namespace trn::placement
