#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "trn/forecast/model_shape.hpp"

namespace trn::forecast {

// How one worker (a NeuronCore) trains the model: what its memory follows from
// (docs/planner.md#memory).
struct WorkerMemoryInputs {
  std::int64_t tensor_parallel = 1;
  std::int64_t pipeline_parallel = 1;
  std::int64_t data_parallel = 1;
  std::int64_t micro_batch = 1;
  std::int64_t seq_len = 0;
  bool zero1 = false;  // AdamW's moments divided over the data-parallel group
  // A bf16 model with fp32 master weights (the trainer on Neuron); false: fp32 throughout.
  bool bf16 = true;
  // Selective activation checkpointing: the core attention recomputed in the backward.
  bool selective_recompute = false;
  // Sequence parallelism: the norms' and residuals' activations split over tensor parallel.
  bool sequence_parallel = false;
};

// Bytes one worker holds, by what holds them (the model's share of the worker: 1 / (tp x pp) of
// its parameters).
struct WorkerMemory {
  double weights = 0;      // the model's parameters, and their fp32 master copies under bf16
  double gradients = 0;    // the model's gradients (bf16: and their fp32 sums over micro-steps)
  double optimizer = 0;    // AdamW's two fp32 moments (ZeRO-1: and the part's fp32 values)
  double activations = 0;  // what one micro-step keeps for its backward
  // At the optimizer step, after the backward freed the activations: the fp32 copy of the
  // gradients (the data-parallel average's flat buffer, or the master weights' gradients).
  double step_copy = 0;
  // The most held at once: in the backward (activations and gradients) or at the step.
  double peak() const;
};

// The trainer's memory for `shape` trained as `inputs` says. Activations follow Korthikanti et
// al. (2022), section 4, with tensor parallelism t: s b h (10 + 24/t + 5 a s / (h t)) bytes per
// layer of 16-bit values, or s b h (10 + 24/t) with selective recomputation; plus the fp32
// logits of the rank's vocabulary slice.
WorkerMemory worker_memory(const ModelShape& shape, const WorkerMemoryInputs& inputs);

// The device memory one worker has on `instance_type` with `workers_per_node` workers (a trn2
// node's logical NeuronCores depend on its LNC setting); nullopt where it is not known here
// (CPU and GPU nodes, other instance types).
std::optional<double> device_memory_per_worker(std::string_view instance_type,
                                               std::int64_t workers_per_node);

}  // namespace trn::forecast
