#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trn::taskenv {

// How a task starts its Neuron workers, which decides who describes torch-neuronx's process
// world (docs/hardware.md#torch-neuronx-world):
// - per-core: the task is the worker (one Slurm task per NeuronCore or group of cores);
//   torch-neuronx then only copies RANK, so spank_trn sets the NEURON_PJRT_* world itself.
// - torchrun: the task runs torchrun, whose workers torch-neuronx describes from torchrun's
//   RANK/WORLD_SIZE/LOCAL_*; spank_trn leaves the world to it.
// - auto: torchrun when the task's program is torchrun, else per-core.
enum class NeuronLaunch { kAuto, kPerCore, kTorchrun };

NeuronLaunch parse_neuron_launch(std::string_view text, std::string_view what);
std::string_view to_string(NeuronLaunch launch);

// auto resolved from the task's argv: torchrun (any path) or `python -m torch.distributed.run`
// is torchrun, and so is trn-run's compile agent running torchrun; anything else (the worker
// itself, a wrapper script) is per-core.
NeuronLaunch resolve_neuron_launch(NeuronLaunch requested, const std::vector<std::string>& argv);

}  // namespace trn::taskenv
