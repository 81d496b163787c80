#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "trn/plan/plan.hpp"

namespace trn::plan {

// What one Slurm task runs: the worker command itself when the task is one worker, or torchrun
// starting `processes` workers of it (torchrun reads its node rank and rendezvous from the
// PET_* variables spank_trn sets when a step has one task per node). Under torchrun each worker
// runs `worker_prefix` + the worker command (torchrun --no_python execs the first word).
std::vector<std::string> task_command(const std::vector<std::string>& worker_command,
                                      std::int64_t processes,
                                      const std::vector<std::string>& worker_prefix = {});

// The worker_prefix of a plan's torchrun workers: `<launcher> neuron-worker --` (`launcher`:
// trn-launcher's path), which leaves each worker only its own NeuronCore, for worker_cores:
// per-worker on Neuron nodes; nothing otherwise (each worker inherits the task's
// NEURON_RT_VISIBLE_CORES; nodes without Neuron devices have no cores to split).
std::vector<std::string> worker_prefix(const Plan& plan, const std::filesystem::path& launcher);

}  // namespace trn::plan
