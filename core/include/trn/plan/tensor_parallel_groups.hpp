#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trn/plan/profile.hpp"

namespace trn::plan {

// "" when neuronx-distributed has a replica-group order for `tensor_parallel` on nodes of
// `instance_type` with `cores_per_node` logical NeuronCores; else why not and the degrees it
// supports there. On a whole trn2 node its parallel_state (get_logic_chosen, v2.28.0) supports
// neither consecutive nor half-node groups for tp 16 at logical NeuronCore config 1 (128 cores)
// or tp 8 at config 2 (64): such a job would be compiled and started, then fail or hang in its
// first collective (docs/hardware.md#torch-xla-groups).
std::string unsupported_tensor_parallel(const std::string& instance_type,
                                        std::int64_t cores_per_node, std::int64_t tensor_parallel);

// Whether a profile's workers train on the native PyTorch path (TorchNeuron): the bundled
// trainer's `--native` or `--device neuron` in `command`, or worker_cores per-worker, which
// declares the workers TorchNeuron's whatever their command (TorchTitan's trainer). Their
// tensor-parallel groups are DTensor DeviceMesh groups, not neuronx-distributed's replica groups,
// so the check above is not theirs.
bool trains_natively(const std::vector<std::string>& command, WorkerCores worker_cores);

}  // namespace trn::plan
