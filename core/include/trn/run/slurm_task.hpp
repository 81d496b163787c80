#pragma once

#include <optional>

#include "trn/common/id_list.hpp"
#include "trn/run/slurm_allocation.hpp"
#include "trn/taskenv/step_facts.hpp"

namespace trn::run {

// One task of an srun step as Slurm's output environment shows it to the task (srun(1),
// "OUTPUT ENVIRONMENT VARIABLES"): what spank_trn reads from SPANK items, for a cluster whose
// plugstack.conf has no spank_trn (docs/launchers.md#without-the-plugin).
struct SlurmTask {
  taskenv::StepFacts facts;
  taskenv::TaskIds ids;
  std::optional<IdList> devices;  // SLURM_STEP_GPUS, else SLURM_JOB_GPUS (gpu GRES)
};

// SLURM_JOB_ID, SLURM_STEP_ID, SLURM_STEP_NUM_NODES, SLURM_NODEID, SLURM_STEP_NUM_TASKS,
// SLURM_STEP_TASKS_PER_NODE (this node's count), SLURM_LOCALID, SLURM_PROCID,
// SLURM_STEP_NODELIST (its first host holds rank 0) and SLURMD_NODENAME. A missing or malformed
// variable throws trn::Error naming it: the command was not started by srun.
SlurmTask read_slurm_task(const EnvLookup& env);

// The tasks on node `node_id` of a SLURM_STEP_TASKS_PER_NODE / SLURM_TASKS_PER_NODE value such as
// "32(x2)" or "2(x3),1". Throws trn::Error naming `variable` when malformed or too short.
unsigned tasks_on_node(std::string_view tasks_per_node, unsigned node_id,
                       std::string_view variable);

}  // namespace trn::run
