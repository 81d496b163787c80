#pragma once

#include <optional>
#include <string>

namespace trn::run {

// The NeuronCore of one torchrun worker on the native path (TorchNeuron), as the text of its own
// NEURON_RT_VISIBLE_CORES. TorchNeuron keeps a NEURON_RT_VISIBLE_CORES it finds set and then
// requires exactly one visible core per process (docs/hardware.md#torchneuron-world), while the
// task that runs torchrun is given the node's whole range (spank_trn, or trn-launcher
// slurm-task): so each worker takes the LOCAL_RANK-th core of its task's range.
// The inputs are the worker's environment: the task's NEURON_RT_VISIBLE_CORES and torchrun's
// LOCAL_RANK and LOCAL_WORLD_SIZE (nullopt: unset). Throws trn::Error, one line naming the
// variable, the problem and the fix, when one is missing or malformed, or when the range does
// not hold exactly LOCAL_WORLD_SIZE cores.
std::string worker_visible_core(const std::optional<std::string>& task_cores,
                                const std::optional<std::string>& local_rank,
                                const std::optional<std::string>& local_world_size);

}  // namespace trn::run
