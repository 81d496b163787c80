#include "trn/plan/task_command.hpp"

#include "trn/common/error.hpp"

namespace trn::plan {

std::vector<std::string> task_command(const std::vector<std::string>& worker_command,
                                      std::int64_t processes,
                                      const std::vector<std::string>& worker_prefix) {
  if (processes < 1) {
    throw Error("internal: a task must run at least one worker process (got " +
                std::to_string(processes) + ")");
  }
  if (processes == 1) return worker_command;
  std::vector<std::string> command = {"torchrun", "--nproc_per_node=" + std::to_string(processes),
                                      "--no_python"};
  command.insert(command.end(), worker_prefix.begin(), worker_prefix.end());
  command.insert(command.end(), worker_command.begin(), worker_command.end());
  return command;
}

std::vector<std::string> worker_prefix(const Plan& plan, const std::filesystem::path& launcher) {
  if (plan.worker_cores == WorkerCores::kPerTask || !plan.neuron_devices) return {};
  return {launcher.string(), "neuron-worker", "--"};
}

}  // namespace trn::plan
