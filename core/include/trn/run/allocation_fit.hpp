#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trn/run/slurm_allocation.hpp"

namespace trn::run {

// What one node of a plan needs from the job's allocation before any step starts.
struct NodeNeeds {
  unsigned tasks_per_node = 1;      // srun gives each task one CPU at least
  std::int64_t neuron_devices = 0;  // the devices the plan's workers use on a node
};

// "" when the job holds what every node needs; else one line naming the node, what the job
// holds, what the plan needs and the fix (sbatch --exclusive). A job without --exclusive gets
// one CPU per node by default, and srun then refuses the training step ("More processors
// requested than permitted"): that is the job's configuration, never a node failure.
// `node_names` are the job's nodes in its order (for the message; may be shorter).
std::string allocation_shortfall(const SlurmAllocation& allocation, const NodeNeeds& needs,
                                 const std::vector<std::string>& node_names);

// Whether srun's own output says Slurm refused to create the step because the job cannot hold
// it (too few CPUs or too little memory, a request no node meets): a configuration error that
// a restart cannot mend. A step refused for a down or busy node is not one.
bool slurm_refused_step(const std::string& srun_output);

}  // namespace trn::run
