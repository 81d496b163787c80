#pragma once

#include <string>
#include <vector>

namespace trn::launcher {

// trn-launcher slurm-task [--fsroot=DIR] [--cache-shared=DIR] [--local-cache=DIR|off]
// [--topology-cache=DIR|off] -- COMMAND:
// what each srun task of trn-run runs on a cluster whose plugstack.conf has no spank_trn
// (docs/launchers.md#without-the-plugin). It reads the task's place from Slurm's variables, sets
// the environment spank_trn would set (the same core calls), binds the task to its CPUs and
// execs COMMAND. Returns only on failure: 2 with one line on stderr.
int slurm_task_command(const std::vector<std::string>& args);

}  // namespace trn::launcher
