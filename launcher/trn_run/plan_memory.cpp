#include "plan_memory.hpp"

#include <algorithm>
#include <cstdio>

#include "trn/common/error.hpp"
#include "trn/forecast/model_shape.hpp"

namespace trn::launcher {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

bool has_word(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// The value after `option` in `words` ("": not given).
std::string option_value(const std::vector<std::string>& words, const std::string& option) {
  const auto it = std::find(words.begin(), words.end(), option);
  return it == words.end() || it + 1 == words.end() ? "" : *(it + 1);
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", bytes / kGiB);
  return text;
}

}  // namespace

std::optional<PlanMemory> plan_memory(const plan::Plan& plan) {
  const auto& words = plan.command;
  if (!has_word(words, "trn_trainer") || !plan.seq_len) return std::nullopt;
  const auto* shape = forecast::find_model_shape(plan.forecast_model);
  const auto device = forecast::device_memory_per_worker(plan.instance_type, plan.workers_per_node);
  if (shape == nullptr || !device) return std::nullopt;
  PlanMemory result;
  result.device_bytes = *device;
  result.selective_recompute = option_value(words, "--activation-checkpointing") == "selective";
  result.sequence_parallel = has_word(words, "--sequence-parallel") && plan.tensor_parallel > 1;
  result.memory =
      forecast::worker_memory(*shape, {.tensor_parallel = plan.tensor_parallel,
                                       .pipeline_parallel = plan.pipeline_parallel,
                                       .data_parallel = plan.data_parallel,
                                       .micro_batch = plan.micro_batch,
                                       .seq_len = *plan.seq_len,
                                       .zero1 = has_word(words, "--zero1"),
                                       .bf16 = option_value(words, "--dtype") != "fp32",
                                       .selective_recompute = result.selective_recompute,
                                       .sequence_parallel = result.sequence_parallel});
  return result;
}

std::string plan_memory_line(const PlanMemory& plan) {
  const auto& m = plan.memory;
  return "memory/worker     about " + gib(m.peak()) + " GiB of " + gib(plan.device_bytes) +
         " GiB (weights " + gib(m.weights) + ", gradients " + gib(m.gradients) + ", optimizer " +
         gib(m.optimizer) + ", activations " + gib(m.activations) +
         (plan.selective_recompute ? " with selective recomputation" : "") +
         (plan.sequence_parallel
              ? (plan.selective_recompute ? " and" : " with") + std::string(" sequence parallelism")
              : "") +
         ")\n";
}

nlohmann::json plan_memory_json(const PlanMemory& plan) {
  const auto& m = plan.memory;
  return {{"peak_bytes", m.peak()},
          {"device_bytes", plan.device_bytes},
          {"weights_bytes", m.weights},
          {"gradients_bytes", m.gradients},
          {"optimizer_bytes", m.optimizer},
          {"activations_bytes", m.activations},
          {"step_copy_bytes", m.step_copy},
          {"selective_recompute", plan.selective_recompute},
          {"sequence_parallel", plan.sequence_parallel}};
}

void check_plan_memory(const plan::Plan& plan) {
  const auto estimate = plan_memory(plan);
  if (!estimate || estimate->memory.peak() <= estimate->device_bytes) return;
  const auto& m = estimate->memory;
  const auto raise_tp =
      "raise tensor_parallel (--set tensor_parallel=" + std::to_string(plan.tensor_parallel * 2) +
      ")";
  const std::string fix =
      !estimate->selective_recompute
          ? "add --activation-checkpointing selective to the profile's command, or " + raise_tp
      : !estimate->sequence_parallel && plan.tensor_parallel > 1
          ? "add --sequence-parallel to the profile's command, or " + raise_tp
          : raise_tp + " or lower micro_batch or seq_len";
  throw Error("profile " + plan.profile + ": each worker would need about " + gib(m.peak()) +
              " GiB (activations " + gib(m.activations) + ", weights " + gib(m.weights) +
              ", gradients " + gib(m.gradients) + ", optimizer " + gib(m.optimizer) +
              " GiB) but a " + plan.instance_type + " NeuronCore has " +
              gib(estimate->device_bytes) + " GiB: " + fix + " (docs/planner.md#memory)");
}

}  // namespace trn::launcher
