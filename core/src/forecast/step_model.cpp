#include "trn/forecast/step_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "trn/common/error.hpp"

namespace trn::forecast {
namespace {

void check_shape(const StepShape& s) {
  const std::int64_t model_parallel = s.tensor_parallel * s.pipeline_parallel;
  if (s.nodes < 1 || s.workers_per_node < 1 || s.micro_batch < 1 || s.grad_accum < 1 ||
      s.data_parallel < 1 || model_parallel < 1 || s.global_batch < 1) {
    throw Error("cannot forecast a step of " + std::to_string(s.nodes) + " nodes x " +
                std::to_string(s.workers_per_node) + " workers, micro-batch " +
                std::to_string(s.micro_batch) + ", accumulation " + std::to_string(s.grad_accum) +
                ": every count must be at least 1");
  }
  if (s.data_parallel * model_parallel != s.nodes * s.workers_per_node) {
    throw Error(
        "cannot forecast: tp x pp x dp = " + std::to_string(s.data_parallel * model_parallel) +
        " is not the " + std::to_string(s.nodes * s.workers_per_node) + " workers");
  }
  if (s.flops_per_sequence <= 0 || s.parameters <= 0) {
    throw Error("cannot forecast a model without FLOPs or parameters: set forecast_model");
  }
}

// Seconds of one micro-step on one worker.
double micro_step_seconds(const StepShape& s, const NodeHardware& hw, const Calibration& c) {
  const double work = static_cast<double>(s.micro_batch) * s.flops_per_sequence /
                      static_cast<double>(s.tensor_parallel * s.pipeline_parallel);
  if (c.measured_micro_step_s) return *c.measured_micro_step_s * work / c.measured_work;
  if (c.mfu <= 0 || hw.peak_flops_per_worker <= 0) {
    throw Error("cannot forecast " + hw.instance_type +
                " nodes without a measured run: pass --calibrate RUN_DIR");
  }
  return work / (hw.peak_flops_per_worker * c.mfu);
}

// The tensor-parallel group's activation all-reduces of one micro-step: a ring over NeuronLink,
// which every NeuronCore of a device shares with the other. A measured micro-step has them in.
double tensor_parallel_seconds(const StepShape& s, const NodeHardware& hw, const Calibration& c) {
  if (s.tensor_parallel < 2 || c.measured_micro_step_s || hw.intra_node_bytes_per_s <= 0) return 0;
  const double t = static_cast<double>(s.tensor_parallel);
  const double per_worker = hw.intra_node_bytes_per_s /
                            static_cast<double>(std::max<std::int64_t>(1, hw.workers_per_device));
  return 2 * (t - 1) / t * s.tensor_parallel_bytes / per_worker;
}

// The attention scores' elementwise work, bound by device memory. A measured micro-step has it in.
double attention_seconds(const StepShape& s, const NodeHardware& hw, const Calibration& c) {
  if (c.measured_micro_step_s || hw.memory_bytes_per_s_per_worker <= 0) return 0;
  return s.attention_scores * c.attention_bytes_per_score / hw.memory_bytes_per_s_per_worker;
}

// A stage's activation out and its gradient back per micro-step: over NeuronLink while the
// pipeline stays in a node, else over the node's EFA share of a worker.
double pipeline_seconds(const StepShape& s, const NodeHardware& hw, const Calibration& c) {
  if (s.pipeline_parallel < 2 || c.measured_micro_step_s) return 0;
  const bool in_node = s.tensor_parallel * s.pipeline_parallel <= s.workers_per_node;
  const double per_worker =
      in_node ? hw.intra_node_bytes_per_s /
                    static_cast<double>(std::max<std::int64_t>(1, hw.workers_per_device))
              : hw.inter_node_bytes_per_s / static_cast<double>(s.workers_per_node);
  return per_worker > 0 ? s.pipeline_bytes / per_worker : 0;
}

// Ring all-reduce of the gradients: first among the data-parallel replicas inside a node
// (NeuronLink), then each node's share across the nodes (EFA): 2(r-1)/r x bytes / bandwidth.
double allreduce_seconds(const StepShape& s, const NodeHardware& hw, const Calibration& c) {
  const std::int64_t model_parallel = s.tensor_parallel * s.pipeline_parallel;
  const double worker_bytes =
      s.parameters * c.gradient_bytes_per_parameter / static_cast<double>(model_parallel);
  const std::int64_t local_replicas =
      std::max<std::int64_t>(1, s.workers_per_node / model_parallel);
  double seconds = 0;
  if (local_replicas > 1 && hw.intra_node_bytes_per_s > 0) {
    const double r = static_cast<double>(local_replicas);
    seconds += 2 * (r - 1) / r * worker_bytes / hw.intra_node_bytes_per_s;
  }
  const std::int64_t rings = s.data_parallel / local_replicas;  // replicas across nodes
  if (rings > 1 && hw.inter_node_bytes_per_s > 0) {
    const double r = static_cast<double>(rings);
    const double node_bytes =
        worker_bytes * static_cast<double>(std::min(s.workers_per_node, model_parallel));
    seconds +=
        2 * (r - 1) / r * node_bytes / hw.inter_node_bytes_per_s + 2 * (r - 1) * hw.latency_s;
  }
  return seconds;
}

double optimizer_seconds(const StepShape& s, const NodeHardware& hw, const Calibration& c) {
  const double worker_parameters =
      s.parameters / static_cast<double>(s.tensor_parallel * s.pipeline_parallel);
  if (c.measured_optimizer_s) {
    return *c.measured_optimizer_s * worker_parameters / c.measured_parameters;
  }
  if (hw.memory_bytes_per_s_per_worker <= 0) return 0;
  return worker_parameters * s.optimizer_bytes_per_parameter / hw.memory_bytes_per_s_per_worker;
}

}  // namespace

namespace {

struct PricedOptimizer {
  std::string_view name;
  double bytes_per_parameter;
};
constexpr std::array kOptimizers{PricedOptimizer{"adamw", 32}, PricedOptimizer{"lamb", 48}};

}  // namespace

double optimizer_bytes_per_parameter(std::string_view optimizer) {
  for (const auto& known : kOptimizers) {
    if (known.name == optimizer) return known.bytes_per_parameter;
  }
  throw Error("no optimizer model for " + std::string(optimizer) + ": adamw or lamb");
}

bool priced_optimizer(std::string_view optimizer) {
  return std::any_of(kOptimizers.begin(), kOptimizers.end(),
                     [&](const PricedOptimizer& known) { return known.name == optimizer; });
}

double node_growth(std::int64_t nodes) {
  return std::log2(static_cast<double>(std::max<std::int64_t>(1, nodes)));
}

StepForecast forecast_step(const StepShape& shape, const NodeHardware& hardware,
                           const Calibration& calibration) {
  check_shape(shape);
  StepForecast f;
  const double growth = node_growth(shape.nodes);
  f.tensor_parallel_s = tensor_parallel_seconds(shape, hardware, calibration);
  f.attention_s = attention_seconds(shape, hardware, calibration);
  f.pipeline_s = pipeline_seconds(shape, hardware, calibration);
  f.micro_step_s = micro_step_seconds(shape, hardware, calibration) + f.tensor_parallel_s +
                   f.attention_s + f.pipeline_s;
  // 1F1B: the pipeline fills and drains over pp - 1 micro-steps.
  const double micro_steps = static_cast<double>(shape.grad_accum + shape.pipeline_parallel - 1);
  f.compute_s = micro_steps * f.micro_step_s * (1 + calibration.slowdown_per_doubling * growth);
  f.allreduce_s = allreduce_seconds(shape, hardware, calibration);
  f.optimizer_s = optimizer_seconds(shape, hardware, calibration);
  f.overhead_s = calibration.fixed_step_s + calibration.step_s_per_doubling * growth;
  f.step_s = f.compute_s + f.allreduce_s + f.optimizer_s + f.overhead_s;
  f.seq_per_s = static_cast<double>(shape.global_batch) / f.step_s;
  return f;
}

}  // namespace trn::forecast
