#include "trn/forecast/published_calibration.hpp"

#include <cmath>
#include <sstream>

#include "trn/common/error.hpp"
#include "trn/forecast/node_hardware.hpp"

namespace trn::forecast {
namespace {

NodeHardware trn1_hardware() { return *node_hardware("trn1.32xlarge"); }

const ModelShape& shape_named(std::string_view name) {
  const ModelShape* shape = find_model_shape(name);
  if (shape == nullptr) throw Error("no model shape " + std::string(name));
  return *shape;
}

double published_step_s(const PublishedPoint& p) {
  return static_cast<double>(p.global_batch) / p.seq_per_s;
}

// The MFU that makes the model meet `point` with the other terms of `calibration`: of a
// micro-step, only the compute part (not the tensor-parallel all-reduces) scales as 1 / MFU.
double fit_mfu(const PublishedPoint& point, Calibration calibration) {
  calibration.mfu = 1;
  const StepForecast at_peak = forecast_step(published_shape(point), trn1_hardware(), calibration);
  const double compute_target = published_step_s(point) - (at_peak.step_s - at_peak.compute_s);
  const double micro_step_target = at_peak.micro_step_s * compute_target / at_peak.compute_s;
  return (at_peak.micro_step_s - at_peak.tensor_parallel_s) /
         (micro_step_target - at_peak.tensor_parallel_s);
}

const PublishedPoint& find_point(std::string_view model, std::string_view sdk, PointRole role,
                                 std::int64_t global_batch = 0) {
  for (const auto& p : published_points()) {
    if (p.model == model && p.sdk == sdk && p.role == role &&
        (global_batch == 0 || p.global_batch == global_batch))
      return p;
  }
  throw Error("no published point " + std::string(model) + " " + std::string(sdk));
}

// A release's BERT-Large micro-step, from its one-node point (no per-node terms at one node).
double bert_mfu(std::string_view sdk) {
  return fit_mfu(find_point("bert-large", sdk, PointRole::kMicroStep), Calibration{});
}

// The two per-node terms from the 2.13 16-node points: a large and a small accumulation
// (128 and 2 micro-steps) separate the slowdown of every micro-step from the per-step cost.
Calibration network_fit() {
  Calibration c;
  c.mfu = bert_mfu("2.13");
  const auto& weak = find_point("bert-large", "2.13", PointRole::kNetworkFit, 1048576);
  const auto& strong = find_point("bert-large", "2.13", PointRole::kNetworkFit, 16384);
  const StepForecast a = forecast_step(published_shape(weak), trn1_hardware(), c);
  const StepForecast b = forecast_step(published_shape(strong), trn1_hardware(), c);
  // published = compute x u + allreduce + optimizer + v, u = 1 + 15 k, v = 15 f
  const double ra = published_step_s(weak) - a.allreduce_s - a.optimizer_s;
  const double rb = published_step_s(strong) - b.allreduce_s - b.optimizer_s;
  const double u = (ra - rb) / (a.compute_s - b.compute_s);
  const double v = ra - a.compute_s * u;
  const double extra_nodes = static_cast<double>(weak.nodes - 1);
  c.per_node_slowdown = (u - 1) / extra_nodes;
  c.per_node_step_s = v / extra_nodes;
  return c;
}

constexpr std::string_view kNewestBertRelease = "2.28";

}  // namespace

StepShape published_shape(const PublishedPoint& p) {
  const ModelShape& model = shape_named(p.model);
  StepShape s;
  s.nodes = p.nodes;
  s.workers_per_node = 32;
  s.tensor_parallel = p.tensor_parallel;
  s.pipeline_parallel = p.pipeline_parallel;
  s.data_parallel = p.nodes * 32 / (p.tensor_parallel * p.pipeline_parallel);
  s.micro_batch = p.micro_batch;
  s.grad_accum = p.global_batch / (p.micro_batch * s.data_parallel);
  s.global_batch = p.global_batch;
  s.flops_per_sequence = training_flops_per_sequence(model, p.seq_len);
  s.parameters = parameter_count(model);
  s.tensor_parallel_bytes =
      tensor_parallel_bytes(model, p.seq_len, p.micro_batch, p.pipeline_parallel);
  return s;
}

Calibration published_calibration(std::string_view family) {
  Calibration c = network_fit();
  if (family == "bert") {
    c.mfu = bert_mfu(kNewestBertRelease);
    return c;
  }
  if (family == "llama") {
    c.mfu = fit_mfu(find_point("llama2-7b", "2.16", PointRole::kFamilyFit), c);
    return c;
  }
  throw Error("no published calibration for the " + std::string(family) + " family");
}

std::string published_calibration_text(std::string_view family) {
  const Calibration c = published_calibration(family);
  std::ostringstream out;
  out.precision(3);
  out << "MFU " << 100 * c.mfu << "% ("
      << (family == "llama" ? "Llama 2 7B, 16 nodes, Neuron 2.16"
                            : "BERT-Large, 1 node, Neuron " + std::string(kNewestBertRelease))
      << "); per extra node: micro-steps " << 100 * c.per_node_slowdown << "% slower and "
      << c.per_node_step_s << " s per step (BERT-Large 16 nodes, Neuron 2.13)";
  return out.str();
}

std::vector<ValidationRow> validate_published() {
  std::vector<ValidationRow> rows;
  const Calibration network = network_fit();
  const Calibration llama = published_calibration("llama");
  for (const auto& p : published_points()) {
    if (p.role != PointRole::kValidation) continue;
    Calibration c = network;
    if (p.model == "bert-large") {
      c.mfu = bert_mfu(p.sdk);
    } else {
      c = llama;
    }
    ValidationRow row;
    row.point = &p;
    row.predicted_seq_per_s = forecast_step(published_shape(p), trn1_hardware(), c).seq_per_s;
    row.error = row.predicted_seq_per_s / p.seq_per_s - 1;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace trn::forecast
