#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "trn/forecast/node_hardware.hpp"

namespace trn::forecast {

// The batch arithmetic and model size of one plan: what an optimizer step does.
struct StepShape {
  std::int64_t nodes = 0;
  std::int64_t workers_per_node = 0;
  std::int64_t tensor_parallel = 1;
  std::int64_t pipeline_parallel = 1;
  std::int64_t data_parallel = 0;
  std::int64_t micro_batch = 0;
  std::int64_t grad_accum = 0;
  std::int64_t global_batch = 0;
  double flops_per_sequence = 0;  // training FLOPs of one sequence
  double parameters = 0;
  // Bytes one worker all-reduces inside its tensor-parallel group per micro-step, before the
  // ring's 2(t-1)/t: Megatron's four activation all-reduces per layer (two forward, two
  // backward) of micro_batch x seq_len x hidden bf16 values, for the layers of its stage.
  double tensor_parallel_bytes = 0;
  // Attention scores (softmax inputs) one worker makes per micro-step: micro_batch x the layers
  // of its stage x its heads x seq_len^2. Their elementwise work (scale, mask, softmax, dropout,
  // forward and backward) is bound by device memory where the attention is not fused.
  double attention_scores = 0;
  // Bytes a pipeline stage sends and receives per micro-step: the activation forward and its
  // gradient back (micro_batch x seq_len x hidden, bf16, each way).
  double pipeline_bytes = 0;
  // Device memory traffic of the optimizer per parameter (optimizer_bytes_per_parameter).
  double optimizer_bytes_per_parameter = 32;
};

// AdamW reads weights, gradients and both moments and writes weights and moments (fp32: 7 x 4 B,
// rounded up to 32 for the gradient's read by the step); LAMB adds the update's write and two
// reads for its per-layer trust ratio (+16). Throws trn::Error for another name.
double optimizer_bytes_per_parameter(std::string_view optimizer);
// Whether the forecast prices `optimizer` (the profile key accepts these names).
bool priced_optimizer(std::string_view optimizer);

// How the fitted per-node terms grow with the node count: log2(nodes), the depth of a tree and
// the number of doublings a synchronisation spans (0 on one node).
double node_growth(std::int64_t nodes);

// The fitted terms of the model (docs/planner.md#model). A micro-step takes
// micro_step_s(shape) x (1 + slowdown_per_doubling x node_growth(nodes)); a step adds the
// gradient all-reduce, the optimizer, fixed_step_s and step_s_per_doubling x node_growth(nodes).
struct Calibration {
  double mfu = 0;  // of the peak bf16 FLOP/s, for a micro-step without a measured time
  // A measured micro-step (seconds) of a run with `measured_work` = micro_batch x FLOPs per
  // sequence / (tp x pp) per worker; it scales with the work of the planned micro-step.
  std::optional<double> measured_micro_step_s;
  double measured_work = 0;
  std::optional<double> measured_optimizer_s;  // per step, with `measured_parameters`
  double measured_parameters = 0;
  // Device memory traffic per attention score of the family's attention kernels (fitted), at
  // the worker's memory bandwidth; 0 where the scores stay on chip (fused attention).
  double attention_bytes_per_score = 0;
  double slowdown_per_doubling = 0;
  double step_s_per_doubling = 0;
  double fixed_step_s = 0;  // a measured run's step beyond its parts (data, logging)
  double gradient_bytes_per_parameter = 4;  // fp32 gradients
};

// One optimizer step, predicted.
struct StepForecast {
  double micro_step_s = 0;       // one micro-step on one node, before the per-node slowdown
  double tensor_parallel_s = 0;  // of which the tensor-parallel all-reduces
  double attention_s = 0;        // of which the attention scores' elementwise work
  double pipeline_s = 0;         // of which the pipeline's sends and receives
  double compute_s = 0;          // all micro-steps (and the pipeline's fill and drain)
  double allreduce_s = 0;        // the gradient all-reduce, exposed (after the last micro-step)
  double optimizer_s = 0;
  double overhead_s = 0;  // the fitted per-node and fixed terms
  double step_s = 0;
  double seq_per_s = 0;
};

// Throws trn::Error when a count or size is out of range (zero workers, degrees that do not
// divide the workers).
StepForecast forecast_step(const StepShape& shape, const NodeHardware& hardware,
                           const Calibration& calibration);

}  // namespace trn::forecast
