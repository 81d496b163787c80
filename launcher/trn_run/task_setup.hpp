#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trn/common/id_list.hpp"
#include "trn/taskenv/env_options.hpp"
#include "trn/taskenv/step_facts.hpp"

namespace trn::launcher {

// The step on this node, for computing its tasks' environment where spank_trn does not: a node
// that starts its own workers (node-workers) and a Slurm task on a cluster without the plugin
// (slurm-task).
struct NodeStep {
  std::string fsroot = "/";  // the node's tree (%n: the node's name)
  // The per-boot topology cache spank_trn keeps (its topology_cache=, /run/trn-slurm by default);
  // none: discover every time.
  std::optional<std::filesystem::path> topology_cache;
  taskenv::StepFacts facts;
  std::vector<std::string> command;  // what each task runs: decides per-core or torchrun
  std::optional<IdList> devices;     // Neuron devices Slurm granted (gpu GRES); none: all
  taskenv::EnvOptions env_options;   // the compile-cache tiers; the launch is resolved here
};

// One task's environment, as spank_trn computes it for a Slurm task (core/taskenv), and the
// CPUs to bind it to (none: leave it unbound).
struct TaskSetup {
  std::map<std::string, std::string> env;
  unsigned rank = 0;
  std::optional<IdList> cpus;
};

// The environment of `tasks` (local and global ids) of the step: the same core calls spank_trn
// makes (place_step, prepare_step_environment, task_environment). The first task's warnings go
// to stderr behind `tool`.
std::vector<TaskSetup> task_setups(const NodeStep& step, const std::vector<taskenv::TaskIds>& tasks,
                                   const std::string& tool);

}  // namespace trn::launcher
