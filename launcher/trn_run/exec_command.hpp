#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trn::launcher {

// Replaces this process with COMMAND (searched on PATH), keeping the environment. Returns only
// when it cannot: 127 when the program is not found, else 126, after one line on stderr naming
// `who` (e.g. "trn-launcher slurm-task"), the program and why.
int exec_command(const std::vector<std::string>& command, std::string_view who);

}  // namespace trn::launcher
