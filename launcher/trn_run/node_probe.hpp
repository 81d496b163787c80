#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace trn::launcher {

// The nodes among `nodes` on which a one-task step (`true`) did not run within `limit`: lost
// (their slurmd or the machine gone). One srun --overlap per node, all at once, so a lost node
// costs `limit`, not Slurm's SlurmdTimeout; a live node answers in a fraction of a second.
std::vector<std::string> unresponsive_nodes(const std::vector<std::string>& nodes,
                                            std::chrono::milliseconds limit);

}  // namespace trn::launcher
