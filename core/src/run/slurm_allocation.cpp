#include "trn/run/slurm_allocation.hpp"

#include <charconv>

#include "trn/common/error.hpp"

namespace trn::run {
namespace {

unsigned long parse_number(const std::string& name, const std::string& value) {
  unsigned long number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc{} || end != value.data() + value.size()) {
    throw Error("environment variable " + name + "='" + value +
                "' is not a whole number: it is set by Slurm; unset it outside Slurm jobs");
  }
  return number;
}

}  // namespace

std::optional<SlurmAllocation> read_slurm_allocation(const EnvLookup& env) {
  const auto job_id = env("SLURM_JOB_ID");
  if (!job_id) return std::nullopt;
  SlurmAllocation allocation;
  allocation.job_id = static_cast<std::uint32_t>(parse_number("SLURM_JOB_ID", *job_id));
  const auto nnodes = env("SLURM_JOB_NUM_NODES") ? env("SLURM_JOB_NUM_NODES") : env("SLURM_NNODES");
  if (nnodes)
    allocation.nnodes = static_cast<unsigned>(parse_number("SLURM_JOB_NUM_NODES", *nnodes));
  if (allocation.nnodes == 0)
    throw Error("SLURM_JOB_NUM_NODES=0: Slurm reports no nodes for job " + *job_id);
  allocation.nodelist = env("SLURM_JOB_NODELIST").value_or(env("SLURM_NODELIST").value_or(""));
  if (allocation.nodelist.empty()) {
    throw Error(
        "SLURM_JOB_ID is set but SLURM_JOB_NODELIST is not: run inside a Slurm job (sbatch, "
        "salloc)");
  }
  allocation.in_step = env("SLURM_STEP_ID").has_value();
  allocation.partition = env("SLURM_JOB_PARTITION").value_or("");
  if (const auto restarts = env("SLURM_RESTART_COUNT")) {
    allocation.restart_count =
        static_cast<unsigned>(parse_number("SLURM_RESTART_COUNT", *restarts));
  }
  return allocation;
}

}  // namespace trn::run
