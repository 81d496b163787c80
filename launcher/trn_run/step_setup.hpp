#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "install_layout.hpp"
#include "train_phase.hpp"
#include "trn/plan/plan.hpp"

namespace trn::launcher {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// srun's options for the plan's nodes and tasks.
std::vector<std::string> srun_layout(const plan::Plan& plan);

// PYTHONPATH with the trn_trainer package in `trainer_dir` first, then the caller's own.
std::string trainer_python_path(const std::filesystem::path& trainer_dir);

// The environment every step of the plan gets: the profile's env, the trainer on PYTHONPATH,
// the cluster install's training environment first on PATH.
std::map<std::string, std::string> step_environment(const plan::Plan& plan,
                                                    const InstallLayout& layout);

// The training step of the plan's `attempt` (0: the first start): its tasks, environment, logs
// (train_<node>_<nodes>.log, train-r<attempt>_... after a restart) and heartbeat folder.
// `startup_limit_s`: how long its ranks may take to start (0: no limit).
TrainStep training_step(const plan::Plan& plan, const InstallLayout& layout, unsigned attempt,
                        double startup_limit_s);

}  // namespace trn::launcher
