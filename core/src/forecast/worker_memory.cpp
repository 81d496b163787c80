#include "trn/forecast/worker_memory.hpp"

#include <algorithm>

#include "trn/topology/instance_facts.hpp"

namespace trn::forecast {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

double WorkerMemory::peak() const {
  return weights + optimizer + gradients + std::max(activations, step_copy);
}

WorkerMemory worker_memory(const ModelShape& shape, const WorkerMemoryInputs& inputs) {
  const auto t = static_cast<double>(std::max<std::int64_t>(inputs.tensor_parallel, 1));
  const auto pp = static_cast<double>(std::max<std::int64_t>(inputs.pipeline_parallel, 1));
  const auto dp = static_cast<double>(std::max<std::int64_t>(inputs.data_parallel, 1));
  const double params = parameter_count(shape) / (t * pp);
  const double model_bytes = inputs.bf16 ? 2 : 4;
  WorkerMemory memory;
  memory.weights = params * (model_bytes + (inputs.bf16 ? 4 : 0));
  // A bf16 model's gradients are summed over the micro-steps in fp32 (trainer/trn_trainer/
  // training/fp32_gradients.py): the fp32 sums, and each backward's bf16 gradients beside them.
  memory.gradients = params * (inputs.bf16 ? 4 + 2 : 4);
  // ZeRO-1 keeps the moments and an fp32 copy of the values of a 1/dp part (trainer/trn_trainer/
  // parallel/zero1.py); without it, the moments of every parameter.
  memory.optimizer = inputs.zero1 ? params * 12 / dp : params * 8;
  memory.step_copy = params * 4;
  const auto s = static_cast<double>(inputs.seq_len);
  const auto b = static_cast<double>(inputs.micro_batch);
  const auto h = static_cast<double>(shape.hidden);
  const auto a = static_cast<double>(shape.heads);
  // Korthikanti et al. (2022), sections 4 and 5: with sequence parallelism the 10 s b h bytes of
  // the norms and residuals are split too, 34 / t in all.
  const double per_layer = s * b * h *
                           ((inputs.sequence_parallel ? 34 / t : 10 + 24 / t) +
                            (inputs.selective_recompute ? 0 : 5 * a * s / (h * t)));
  const double logits = 4 * s * b * static_cast<double>(shape.vocab) / t;
  memory.activations = per_layer * static_cast<double>(shape.layers) / pp + logits;
  return memory;
}

std::optional<double> device_memory_per_worker(std::string_view instance_type,
                                               std::int64_t workers_per_node) {
  // Each device's memory from the type's published facts (docs/hardware.md#device-memory).
  const auto* facts = topology::instance_facts(instance_type);
  if (workers_per_node <= 0 || facts == nullptr) return std::nullopt;
  return facts->devices * facts->device_memory_gib * kGiB / static_cast<double>(workers_per_node);
}

}  // namespace trn::forecast
