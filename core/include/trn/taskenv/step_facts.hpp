#pragma once

#include <cstdint>
#include <string>

namespace trn::taskenv {

// What Slurm says about the step, as plain values (the adaptor reads them from SPANK items
// and the environment; trn-topo takes them from its options).
struct StepFacts {
  std::uint32_t job_id = 0;
  std::uint32_t step_id = 0;
  unsigned nnodes = 1;            // S_JOB_NNODES
  unsigned node_id = 0;           // S_JOB_NODEID: this node's rank in the step
  unsigned local_task_count = 1;  // S_JOB_LOCAL_TASK_COUNT
  unsigned total_task_count = 1;  // S_JOB_TOTAL_TASK_COUNT
  std::string first_host;         // node of rank 0: trn::first_host(SLURM_STEP_NODELIST)
  std::string node_name;          // this node, named in messages
};

// One task of the step on this node.
struct TaskIds {
  unsigned local_id = 0;   // S_TASK_ID
  unsigned global_id = 0;  // S_TASK_GLOBAL_ID
};

}  // namespace trn::taskenv
