#pragma once

#include <string>
#include <vector>

namespace trn::launcher {

// trn-launcher node-workers [OPTIONS] [--] COMMAND...: what srun and spank_trn do for one node,
// where no Slurm runs (docs/launchers.md#own-workers). It starts --tasks copies of COMMAND, each
// with the environment spank_trn would give that task (core/taskenv, from this node's topology
// and --nodes/--node-rank/--main-host), writes their output to --output (%N: this node's name),
// each line labelled with the task's global rank when --label is given, and ends them all when
// one fails. SIGUSR1 goes on to every task; SIGINT or SIGTERM ends them (a second one at once).
// Its exit status is the first failed task's, else 0. srun's --label, --output and
// --kill-on-bad-exit spell the same, so trn-run's steps put it where srun goes.
int node_workers_command(const std::vector<std::string>& args);

}  // namespace trn::launcher
