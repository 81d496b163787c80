#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "trn/forecast/worker_memory.hpp"
#include "trn/plan/plan.hpp"

namespace trn::launcher {

// What one worker of the plan would hold against its device memory (docs/planner.md#memory).
struct PlanMemory {
  forecast::WorkerMemory memory;
  double device_bytes = 0;
  bool selective_recompute = false;
  bool sequence_parallel = false;
};

// The estimate where it applies: the bundled trainer (its command runs trn_trainer), a model
// the forecast knows (forecast_model), a sequence length, and nodes whose device memory is known
// (Neuron instance types); none otherwise. ZeRO-1, selective recomputation and fp32 are read from
// the trainer's options in the command.
std::optional<PlanMemory> plan_memory(const plan::Plan& plan);

// "memory/worker     13.2 GiB of 16.0 GiB (...)", a line of the plan's text.
std::string plan_memory_line(const PlanMemory& memory);
nlohmann::json plan_memory_json(const PlanMemory& memory);

// trn::Error naming the estimate, the device's memory and the fix when the plan's workers would
// not fit their device memory: before anything is compiled or started.
void check_plan_memory(const plan::Plan& plan);

}  // namespace trn::launcher
