#pragma once

#include <string>
#include <vector>

namespace trn::launcher {

// trn-launcher neuron-worker -- COMMAND: what torchrun starts as each worker of a task whose
// profile says worker_cores: per-worker (the native path, TorchNeuron). It narrows the task's
// NEURON_RT_VISIBLE_CORES to the worker's own core, the LOCAL_RANK-th of the range
// (trn::run::worker_visible_core), and execs COMMAND. Returns only on failure: 2 with one line
// on stderr for bad input, 126/127 when COMMAND cannot run.
int neuron_worker_command(const std::vector<std::string>& args);

}  // namespace trn::launcher
