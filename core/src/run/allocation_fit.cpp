#include "trn/run/allocation_fit.hpp"

#include <array>
#include <string_view>

namespace trn::run {

std::string allocation_shortfall(const SlurmAllocation& allocation, const NodeNeeds& needs,
                                 const std::vector<std::string>& node_names) {
  const std::string job = "job " + std::to_string(allocation.job_id);
  const std::string fix =
      "; submit with sbatch --exclusive (a Trainium node is one job's: every NeuronCore, CPU and "
      "its memory)";
  for (std::size_t i = 0; i < allocation.cpus_per_node.size(); ++i) {
    if (allocation.cpus_per_node[i] >= needs.tasks_per_node) continue;
    const std::string node = i < node_names.size() ? node_names[i] : "node " + std::to_string(i);
    std::string line = job;
    line.append(" holds ")
        .append(std::to_string(allocation.cpus_per_node[i]))
        .append(" CPU(s) on ")
        .append(node)
        .append(" (SLURM_JOB_CPUS_PER_NODE), but the plan starts ")
        .append(std::to_string(needs.tasks_per_node))
        .append(" workers per node, each on a CPU of its own, and srun would refuse the step")
        .append(fix);
    return line;
  }
  if (allocation.gpus_on_node && needs.neuron_devices > 0 &&
      static_cast<std::int64_t>(*allocation.gpus_on_node) < needs.neuron_devices) {
    std::string line = job;
    line.append(" holds ")
        .append(std::to_string(*allocation.gpus_on_node))
        .append(
            " Neuron device(s) per node (SLURM_GPUS_ON_NODE, GRES gpu), but the plan's workers "
            "use ")
        .append(std::to_string(needs.neuron_devices))
        .append(fix)
        .append(" or ask for --gres=gpu:")
        .append(std::to_string(needs.neuron_devices));
    return line;
  }
  return "";
}

bool slurm_refused_step(const std::string& srun_output) {
  // srun prints "Unable to create step for job J: <reason>", the reason in slurm_strerror's
  // words (src/common/slurm_errno.c). Only these reasons are the job's configuration; others
  // ("Required node not available", "Requested nodes are busy") follow a lost or busy node.
  static constexpr std::array<std::string_view, 3> kRefusals = {
      "More processors requested than permitted", "Requested node configuration is not available",
      "Memory required by task is not available"};
  for (const auto refusal : kRefusals) {
    if (srun_output.find(refusal) != std::string::npos) return true;
  }
  return false;
}

}  // namespace trn::run
