#include "slurm_step.hpp"

#include <unistd.h>

#include <climits>

#include "trn/common/error.hpp"
#include "trn/common/hostlist.hpp"

namespace trn::spank {
namespace {

// slurm.h: step ids above SLURM_MAX_NORMAL_STEP_ID (0xfffffff0) are the pending, batch, extern
// and interactive steps.
constexpr std::uint32_t kMaxNormalStepId = 0xfffffff0u;

std::string first_host_of_step(const Host& host) {
  for (const char* name : {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"}) {
    if (auto list = host.getenv(name); list && !list->empty()) return first_host(*list);
  }
  throw Error(
      "the step's environment has no SLURM_STEP_NODELIST or SLURM_JOB_NODELIST, so "
      "the rendezvous node is unknown: check that srun/sbatch set them");
}

std::string this_node(const Host& host) {
  if (auto name = host.getenv("SLURMD_NODENAME"); name && !name->empty()) return *name;
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') return name;
  return "(unknown node)";
}

}  // namespace

bool is_task_step(std::uint32_t step_id) { return step_id <= kMaxNormalStepId; }

SlurmStep read_slurm_step(const Host& host) {
  SlurmStep step;
  auto& facts = step.facts;
  facts.job_id = host.u32(S_JOB_ID, "S_JOB_ID");
  facts.step_id = host.u32(S_JOB_STEPID, "S_JOB_STEPID");
  facts.nnodes = host.u32(S_JOB_NNODES, "S_JOB_NNODES");
  facts.node_id = host.u32(S_JOB_NODEID, "S_JOB_NODEID");
  facts.local_task_count = host.u32(S_JOB_LOCAL_TASK_COUNT, "S_JOB_LOCAL_TASK_COUNT");
  facts.total_task_count = host.u32(S_JOB_TOTAL_TASK_COUNT, "S_JOB_TOTAL_TASK_COUNT");
  facts.first_host = first_host_of_step(host);
  facts.node_name = this_node(host);
  if (auto cores = host.text(S_STEP_ALLOC_CORES); cores && !cores->empty()) {
    step.alloc_cores = IdList::parse(*cores, "S_STEP_ALLOC_CORES");
  }
  step.devices = granted_devices(host);
  step.uid = host.uid();
  step.gid = host.gid();
  return step;
}

std::optional<IdList> granted_devices(const Host& host) {
  for (const char* name : {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS"}) {
    if (auto list = host.getenv(name)) return IdList::parse(*list, name);
  }
  return std::nullopt;
}

}  // namespace trn::spank
