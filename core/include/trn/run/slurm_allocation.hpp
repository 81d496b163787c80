#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  // SLURM_JOB_CPUS_PER_NODE expanded: the CPUs the job holds on each node, in the job's node
  // order; empty when Slurm did not say.
  std::vector<unsigned> cpus_per_node;
  // SLURM_GPUS_ON_NODE: the GRES gpu (Neuron devices under gpu/nrt) the job holds per node;
  // nullopt when the job asked for none or Slurm did not say.
  std::optional<unsigned> gpus_on_node;
};

// SLURM_JOB_CPUS_PER_NODE's format, "CPUs[(xNODES)][,CPUs[(xNODES)]...]" ("72(x2),36" is
// 72, 72, 36), expanded into one count per node. Anything else throws trn::Error naming the
// variable; a repeat count beyond `max_nodes` too (the value is outside input).
std::vector<unsigned> parse_cpus_per_node(std::string_view value, unsigned max_nodes);

// nullopt outside Slurm (no SLURM_JOB_ID). Malformed values are an error naming the variable.
std::optional<SlurmAllocation> read_slurm_allocation(const EnvLookup& env);

}  // namespace trn::run
