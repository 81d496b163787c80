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

Error malformed_cpus_per_node(std::string_view value, const std::string& why) {
  return Error("environment variable SLURM_JOB_CPUS_PER_NODE='" + std::string(value.substr(0, 80)) +
               "' " + why + ": Slurm sets it as CPUs[(xNODES)],...; unset it outside Slurm jobs");
}

}  // namespace

std::vector<unsigned> parse_cpus_per_node(std::string_view value, unsigned max_nodes) {
  std::vector<unsigned> cpus;
  const auto number = [&](std::string_view& rest) {
    unsigned parsed = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), parsed);
    if (error != std::errc{} || end == rest.data())
      throw malformed_cpus_per_node(value, "is not a list of CPU counts");
    rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    return parsed;
  };
  std::string_view rest = value;
  while (true) {
    const unsigned count = number(rest);
    unsigned repeat = 1;
    if (rest.starts_with("(x")) {
      rest.remove_prefix(2);
      repeat = number(rest);
      if (!rest.starts_with(")") || repeat == 0)
        throw malformed_cpus_per_node(value, "is not a list of CPU counts");
      rest.remove_prefix(1);
    }
    if (repeat > max_nodes - cpus.size())
      throw malformed_cpus_per_node(value, "names more nodes than the job has");
    cpus.insert(cpus.end(), repeat, count);
    if (rest.empty()) return cpus;
    if (!rest.starts_with(",")) throw malformed_cpus_per_node(value, "is not a list of CPU counts");
    rest.remove_prefix(1);
  }
}

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
  if (const auto cpus = env("SLURM_JOB_CPUS_PER_NODE"))
    allocation.cpus_per_node = parse_cpus_per_node(*cpus, allocation.nnodes);
  if (const auto gpus = env("SLURM_GPUS_ON_NODE"))
    allocation.gpus_on_node = static_cast<unsigned>(parse_number("SLURM_GPUS_ON_NODE", *gpus));
  return allocation;
}

}  // namespace trn::run
