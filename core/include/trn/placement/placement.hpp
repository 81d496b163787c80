#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trn/common/id_list.hpp"
#include "trn/placement/bind_mode.hpp"
#include "trn/topology/node_topology.hpp"

namespace trn::placement {

// What the step asks for on this node. Every restriction is optional: absent = no restriction.
struct PlacementRequest {
  unsigned local_tasks = 1;  // tasks of the step on this node (S_JOB_LOCAL_TASK_COUNT)
  std::optional<unsigned> cores_per_task;  // --neuron-cores-per-task; default: all / tasks
  BindMode bind = BindMode::kNuma;
  std::optional<unsigned> lnc;          // --neuron-lnc (Trainium2: 1 or 2)
  std::optional<std::string> lnc_env;   // NEURON_LOGICAL_NC_CONFIG as the user set it, if set
  std::optional<IdList> allowed_cores;  // S_STEP_ALLOC_CORES: Slurm (= hwloc logical) core ids
  std::optional<IdList> allowed_cpus;   // CPU ids, e.g. the step's affinity mask
  // Neuron device indices granted to the step (SLURM_STEP_GPUS, else SLURM_JOB_GPUS, with
  // gpu/nrt GRES). An empty list means the step was granted none.
  std::optional<IdList> allowed_devices;
};

struct TaskPlacement {
  unsigned local_task = 0;
  IdList neuron_cores;                   // logical NeuronCore ids, contiguous; empty: none
  std::vector<unsigned> devices;         // Neuron device indices holding those cores
  std::vector<unsigned> numa_nodes;      // NUMA nodes of those devices
  IdList cpus;                           // CPUs to bind to (bind none: all CPUs of the step)
  std::vector<std::string> efa_devices;  // EFA devices serving the task's devices
  std::string visible_cores;             // NEURON_RT_VISIBLE_CORES value ("" when no cores)
  std::string cpu_list;                  // cpus in list form (TRN_CPUS)
};

// Computed once per step and node; per task only tasks[local id] is looked at.
struct StepPlacement {
  unsigned lnc = 1;               // logical NeuronCore config in effect (not 1 only on trn2)
  unsigned cores_per_device = 0;  // logical NeuronCores per device
  unsigned cores_per_task = 0;    // 0 when the step has no NeuronCores on this node
  BindMode bind = BindMode::kNuma;
  bool bind_cpus = true;  // false with BindMode::kNone
  IdList allowed_cpus;    // the step's CPUs on this node
  std::vector<TaskPlacement> tasks;
  std::vector<std::string> notes;  // worth one verbose log line each (no devices, fallbacks)

  bool has_neuron_cores() const { return cores_per_task > 0; }
};

// Assigns each local task K contiguous, increasing logical NeuronCores starting at a multiple of
// K (what NEURON_RT_VISIBLE_CORES requires), within the granted devices, then its CPUs by `bind`
// within the allowed CPUs. A node without (granted) Neuron devices gets CPU placement only.
// Throws trn::Error naming the input and the fix, e.g. when the cores do not split evenly.
StepPlacement place_step(const topology::NodeTopology& topology, const PlacementRequest& request);

}  // namespace trn::placement
