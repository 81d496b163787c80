#include <algorithm>

#include "core_ranges.hpp"
#include "cpu_binding.hpp"
#include "step_resources.hpp"
#include "trn/common/error.hpp"
#include "trn/placement/placement.hpp"

namespace trn::placement {
namespace {

template <typename T>
void add_unique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

void describe_devices(const topology::NodeTopology& topology, unsigned cores_per_device,
                      TaskPlacement& task) {
  for (unsigned core : task.neuron_cores.ids()) {
    const auto* device = topology.device(core / cores_per_device);
    add_unique(task.devices, device->index);
    if (device->numa_node >= 0) add_unique(task.numa_nodes, unsigned(device->numa_node));
    for (const auto& efa : device->efa_devices) add_unique(task.efa_devices, efa);
  }
  std::sort(task.numa_nodes.begin(), task.numa_nodes.end());
}

}  // namespace

StepPlacement place_step(const topology::NodeTopology& topology, const PlacementRequest& request) {
  if (request.local_tasks == 0) {
    throw Error(
        "the step has 0 tasks on this node: nothing to place (a step needs at least "
        "one task per node)");
  }
  StepPlacement step;
  step.bind = request.bind;
  step.bind_cpus = request.bind != BindMode::kNone;
  step.allowed_cpus = step_cpus(topology, request);
  step.tasks.resize(request.local_tasks);
  for (unsigned i = 0; i < request.local_tasks; ++i) step.tasks[i].local_task = i;

  const auto devices = step_devices(topology, request);
  if (topology.devices.empty()) {
    step.notes.push_back("no Neuron devices on this node: CPU placement and rendezvous only");
  } else if (devices.empty()) {
    step.notes.push_back("the step was granted no Neuron device on this node");
  } else {
    step.lnc = step_lnc(topology, request, step.notes);
    const unsigned physical = devices.front()->physical_cores;
    step.cores_per_device = physical / step.lnc;
    IdList available;
    for (const auto* device : devices) {
      if (device->physical_cores != physical) {
        throw Error("neuron" + std::to_string(device->index) + " has " +
                    std::to_string(device->physical_cores) + " NeuronCores and neuron" +
                    std::to_string(devices.front()->index) + " has " + std::to_string(physical) +
                    ": mixed devices on one node are not supported; check the topology");
      }
      available = available.united(
          IdList::range(device->index * step.cores_per_device, step.cores_per_device));
    }
    const CoreRanges ranges = split_cores(available, request.local_tasks, request.cores_per_task);
    step.cores_per_task = ranges.cores_per_task;
    for (unsigned i = 0; i < request.local_tasks; ++i) {
      auto& task = step.tasks[i];
      task.neuron_cores = ranges.per_task[i];
      task.visible_cores = task.neuron_cores.to_string();
      describe_devices(topology, step.cores_per_device, task);
    }
  }
  if (!step.has_neuron_cores() && request.cores_per_task) {
    step.notes.push_back("--neuron-cores-per-task ignored: no Neuron device for the step here");
  }
  bind_cpus(topology, request.bind, step.allowed_cpus, step.tasks, step.notes);
  for (auto& task : step.tasks) task.cpu_list = task.cpus.to_string();
  return step;
}

}  // namespace trn::placement
