#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "spank_host.hpp"
#include "trn/common/id_list.hpp"
#include "trn/taskenv/step_facts.hpp"

// What slurmstepd knows about the step, read from SPANK items and the job's environment.
namespace trn::spank {

struct SlurmStep {
  taskenv::StepFacts facts;
  std::optional<IdList> alloc_cores;  // S_STEP_ALLOC_CORES
  std::optional<IdList> devices;      // SLURM_STEP_GPUS, else SLURM_JOB_GPUS
  uid_t uid = 0;
  gid_t gid = 0;
};

// Steps whose processes are not the user's tasks: the batch script, the extern step, the
// interactive step of salloc. Their environment would leak into every srun inside the job,
// where the plugin's own values would then look user-set, so the plugin leaves them alone.
bool is_task_step(std::uint32_t step_id);

// Throws trn::Error when Slurm leaves out something the step needs (e.g. the node list).
SlurmStep read_slurm_step(const Host& host);

// The Neuron devices Slurm granted through gpu GRES (gpu/nrt), std::nullopt when it says none.
std::optional<IdList> granted_devices(const Host& host);

}  // namespace trn::spank
