#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace trn::launcher {

// The hosts of a Slurm hostlist ("trn-st-[1-3]"), in Slurm's order, as Slurm itself expands it
// (`scontrol show hostnames`); trn::Error when scontrol fails or takes longer than `timeout`.
std::vector<std::string> slurm_hostnames(const std::string& hostlist,
                                         std::chrono::milliseconds timeout);

}  // namespace trn::launcher
