#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trn::plan {

// What one Slurm task runs: the worker command itself when the task is one worker, or torchrun
// starting `processes` workers of it (torchrun reads its node rank and rendezvous from the
// PET_* variables spank_trn sets when a step has one task per node).
std::vector<std::string> task_command(const std::vector<std::string>& worker_command,
                                      std::int64_t processes);

}  // namespace trn::plan
