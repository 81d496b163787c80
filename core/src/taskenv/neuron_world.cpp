#include "trn/taskenv/neuron_world.hpp"

#include "trn/common/env_names.hpp"
#include "trn/common/error.hpp"

namespace trn::taskenv {
namespace {

// NEURON_PJRT_PROCESSES_NUM_DEVICES grows by an entry per worker; beyond this many workers the
// variable alone would pass 64 KiB of every task's environment.
constexpr unsigned kMaxListedWorkers = 16384;

}  // namespace

EnvVar NeuronWorld::world_variable() const {
  if (cores_per_worker == 1) {
    return {std::string(env::kNeuronPjrtWorldSize), std::to_string(workers)};
  }
  const std::string entry = std::to_string(cores_per_worker);
  std::string list;
  list.reserve(std::size_t(workers) * (entry.size() + 1));
  for (unsigned i = 0; i < workers; ++i) list += (i == 0 ? "" : ",") + entry;
  return {std::string(env::kNeuronPjrtProcessesNumDevices), list};
}

NeuronWorld per_core_world(const placement::StepPlacement& placement, const StepFacts& facts,
                           bool cores_per_task_fixed) {
  if (!placement.has_neuron_cores()) {
    throw Error("internal: a Neuron world needs a placement with NeuronCores");
  }
  const auto even = std::uint64_t(facts.local_task_count) * facts.nnodes;
  if (!cores_per_task_fixed && even != facts.total_task_count) {
    throw Error(std::to_string(facts.total_task_count) + " tasks on " +
                std::to_string(facts.nnodes) + " nodes with " +
                std::to_string(facts.local_task_count) + " on " + facts.node_name +
                ": the nodes would split their NeuronCores differently, and torch-neuronx's "
                "world (NEURON_PJRT_*) needs the same cores per worker everywhere; give every "
                "node the same task count (--ntasks-per-node) or fix --neuron-cores-per-task");
  }
  NeuronWorld world{facts.total_task_count, placement.cores_per_task};
  if (world.cores_per_worker != 1 && world.workers > kMaxListedWorkers) {
    throw Error(std::to_string(world.workers) + " workers with " +
                std::to_string(world.cores_per_worker) +
                " NeuronCores each: NEURON_PJRT_PROCESSES_NUM_DEVICES would list more than " +
                std::to_string(kMaxListedWorkers) +
                " entries; run one NeuronCore per task (NEURON_PJRT_WORLD_SIZE) or use torchrun");
  }
  return world;
}

}  // namespace trn::taskenv
