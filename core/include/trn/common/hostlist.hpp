#pragma once

#include <string>
#include <string_view>

namespace trn {

// The first host of a Slurm hostlist expression (SLURM_STEP_NODELIST / SLURM_JOB_NODELIST), e.g.
// "trn-st-[003-005,9],other1" -> "trn-st-003" and "rack[1-2]-n[07-08]" -> "rack1-n07". Slurm
// lists the step's nodes in node-id order, so this is the node of rank 0.
std::string first_host(std::string_view hostlist);

}  // namespace trn
