#include "step_setup.hpp"

#include "step_nodes.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/plan/task_command.hpp"

namespace trn::launcher {

std::vector<std::string> srun_layout(const plan::Plan& plan) {
  const auto nodes = std::to_string(plan.nodes);
  std::vector<std::string> args = {"--nodes=" + nodes,
                                   "--ntasks=" + std::to_string(plan.nodes * plan.tasks_per_node),
                                   "--ntasks-per-node=" + std::to_string(plan.tasks_per_node)};
  for (auto& option : srun_node_selection(plan)) args.push_back(std::move(option));
  // The workers of a launch: mpirun profile are one MPI job: Slurm's PMIx wires their world.
  if (plan.launch == plan::LaunchMode::kMpirun) args.emplace_back("--mpi=pmix");
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

TrainStep training_step(const plan::Plan& plan, const InstallLayout& layout, unsigned attempt,
                        double startup_limit_s) {
  TrainStep step;
  step.srun_args = srun_layout(plan);
  // A step stopped because a node was lost holds its nodes until Slurm marks that node down
  // (SlurmdTimeout): --overlap lets the restarted step start on the survivors at once.
  step.srun_args.emplace_back("--overlap");
  step.command = plan::task_command(plan.command, plan.processes_per_task,
                                    plan::worker_prefix(plan, layout.bin_dir / "trn-launcher"));
  step.env = step_environment(plan, layout);
  for (const auto& [name, value] : plan.train_env) step.env[name] = value;
  step.watch_dir = plan.run_dir / "watch" / ("attempt-" + std::to_string(attempt));
  step.env[std::string(env::kTrnWatchDir)] = step.watch_dir.string();
  step.env[std::string(env::kTrnStragglerWindow)] = std::to_string(plan.straggler_window);
  step.watchdog.hang_floor_s = static_cast<double>(plan.hang_timeout_s);
  step.watchdog.startup_limit_s = startup_limit_s;
  step.watchdog.ranks = static_cast<unsigned>(plan.world_size);
  step.watchdog.last_step = plan.steps;
  step.log_dir = plan.run_dir / "logs";
  step.phase = attempt == 0 ? "train" : "train-r" + std::to_string(attempt);  // logs per start
  step.nnodes = static_cast<unsigned>(plan.nodes);
  step.first_node = plan.node_list.front();
  step.tasks = static_cast<unsigned>(plan.nodes * plan.tasks_per_node);
  step.run_dir = plan.run_dir;
  return step;
}

}  // namespace trn::launcher
