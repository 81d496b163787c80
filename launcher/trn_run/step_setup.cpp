#include "step_setup.hpp"

#include "step_nodes.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"

namespace trn::launcher {

std::vector<std::string> srun_layout(const plan::Plan& plan) {
  const auto nodes = std::to_string(plan.nodes);
  std::vector<std::string> args = {"--nodes=" + nodes,
                                   "--ntasks=" + std::to_string(plan.nodes * plan.tasks_per_node),
                                   "--ntasks-per-node=" + std::to_string(plan.tasks_per_node)};
  for (auto& option : srun_node_selection(plan)) args.push_back(std::move(option));
  return args;
}

std::string trainer_python_path(const std::filesystem::path& trainer_dir) {
  auto python_path = trainer_dir.string();
  if (const auto existing = env_value(trn::env::kPythonPath); existing && !existing->empty()) {
    python_path += ":" + *existing;
  }
  return python_path;
}

std::map<std::string, std::string> step_environment(const plan::Plan& plan,
                                                    const InstallLayout& layout) {
  auto env = plan.env;
  env.emplace(trn::env::kPythonPath, trainer_python_path(layout.trainer_dir));
  // The training environment of the cluster install (torch-neuronx, neuronx-cc, torchrun,
  // neuron_parallel_compile): its bin folder first on every step's PATH.
  if (const auto venv_bin = training_venv_bin()) {
    const auto it = env.find(std::string(trn::env::kPath));
    const auto rest =
        it != env.end() ? it->second : env_value(trn::env::kPath).value_or("/usr/bin:/bin");
    env[std::string(trn::env::kPath)] = venv_bin->string() + ":" + rest;
  }
  return env;
}

}  // namespace trn::launcher
