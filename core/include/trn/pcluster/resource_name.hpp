#pragma once

#include <cstddef>
#include <string_view>

namespace trn::pcluster {

// ParallelCluster's rule for SlurmQueues[].Name and ComputeResources[].Name:
// ^[a-z][a-z0-9-]*$ and at most 25 characters (they become parts of Slurm node names).
inline constexpr std::size_t max_resource_name_length = 25;
bool is_valid_resource_name(std::string_view name);

}  // namespace trn::pcluster
