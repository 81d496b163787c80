#pragma once

#include "trn/placement/placement.hpp"
#include "trn/taskenv/step_facts.hpp"
#include "trn/taskenv/task_environment.hpp"

namespace trn::taskenv {

// torch-neuronx's process world when every task of the step is one worker (per-core launch):
// what the Neuron PJRT plugin needs to build one global device array
// (docs/hardware.md#torch-neuronx-world).
struct NeuronWorld {
  unsigned workers = 0;           // tasks of the step, in global rank order
  unsigned cores_per_worker = 0;  // the same for every worker

  // NEURON_PJRT_WORLD_SIZE when every worker has one core (the short form Neuron recommends for
  // big clusters), else NEURON_PJRT_PROCESSES_NUM_DEVICES with one entry per worker.
  EnvVar world_variable() const;
};

// Each node sees only its own tasks, so the world rests on one assumption, checked where it
// can be: the step's nodes are alike (one instance type), so a node with as many tasks as this
// one splits its cores the same way. That holds when every node has the same task count, or
// when the cores per task were fixed (--neuron-cores-per-task). Otherwise throws trn::Error
// saying how to launch evenly. `placement` must have NeuronCores.
NeuronWorld per_core_world(const placement::StepPlacement& placement, const StepFacts& facts,
                           bool cores_per_task_fixed);

}  // namespace trn::taskenv
