#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace trn::run {

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// What a launcher learns from the environment Slurm gives a batch script or a step.
struct SlurmAllocation {
  std::uint32_t job_id = 0;
  unsigned nnodes = 1;
  std::string nodelist;        // compressed hostlist, e.g. trn-st-[1-16]
  bool in_step = false;        // inside `srun` (SLURM_STEP_ID set), not the batch script
  unsigned restart_count = 0;  // SLURM_RESTART_COUNT: times the job was requeued
  std::string partition;       // SLURM_JOB_PARTITION; "" when Slurm did not say
};

// nullopt outside Slurm (no SLURM_JOB_ID). Malformed values are an error naming the variable.
std::optional<SlurmAllocation> read_slurm_allocation(const EnvLookup& env);

}  // namespace trn::run
