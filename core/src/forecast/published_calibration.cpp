#include "trn/forecast/published_calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

#include "trn/common/error.hpp"
#include "trn/forecast/node_hardware.hpp"
#include "trn/forecast/step_work.hpp"

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
// micro-step, only the matrix work scales as 1 / MFU (not the tensor-parallel all-reduces, the
// attention scores' traffic or the pipeline's sends).
double fit_mfu(const PublishedPoint& point, Calibration calibration) {
  calibration.mfu = 1;
  const StepForecast at_peak = forecast_step(published_shape(point), trn1_hardware(), calibration);
  const double compute_target = published_step_s(point) - (at_peak.step_s - at_peak.compute_s);
  const double micro_step_target = at_peak.micro_step_s * compute_target / at_peak.compute_s;
  const double fixed = at_peak.tensor_parallel_s + at_peak.attention_s + at_peak.pipeline_s;
  return (at_peak.micro_step_s - fixed) / (micro_step_target - fixed);
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

// The one-node BERT phase-1 point a user of `point`'s release had: the same table's, else the
// newest published before it.
const PublishedPoint& micro_step_point(const PublishedPoint& point) {
  const PublishedPoint* best = nullptr;
  for (const auto& p : published_points()) {
    if (p.role != PointRole::kMicroStep) continue;
    if (p.sdk == point.sdk && p.source == point.source) return p;
    if (earlier_release(point.sdk, p.sdk)) continue;
    if (best == nullptr || earlier_release(best->sdk, p.sdk)) best = &p;
  }
  if (best == nullptr)
    throw Error("no one-node BERT point before Neuron " + std::string(point.sdk));
  return *best;
}

// The attention scores' traffic per score and the MFU of its release, from the one-node
// phase-1 and phase-2 points of one table: a step is linear in 1 / MFU and in the bytes per
// score, so two points fix both.
Calibration attention_fit() {
  const PublishedPoint& long_seq =
      *std::find_if(published_points().begin(), published_points().end(),
                    [](const PublishedPoint& p) { return p.role == PointRole::kAttentionFit; });
  const PublishedPoint& short_seq = micro_step_point(long_seq);
  // step = a + b / MFU + c x bytes_per_score, probed at three settings
  auto line = [](const PublishedPoint& p) {
    const StepShape shape = published_shape(p);
    Calibration probe;
    probe.mfu = 1;
    const double at_peak = forecast_step(shape, trn1_hardware(), probe).step_s;
    probe.mfu = 0.5;
    const double b = forecast_step(shape, trn1_hardware(), probe).step_s - at_peak;
    probe.mfu = 1;
    probe.attention_bytes_per_score = 1;
    const double c = forecast_step(shape, trn1_hardware(), probe).step_s - at_peak;
    return std::array{at_peak - b, b, c};
  };
  const auto s = line(short_seq);
  const auto l = line(long_seq);
  const double rs = published_step_s(short_seq) - s[0];
  const double rl = published_step_s(long_seq) - l[0];
  const double det = s[1] * l[2] - s[2] * l[1];
  Calibration c;
  c.mfu = det / (rs * l[2] - s[2] * rl);
  c.attention_bytes_per_score = (s[1] * rl - rs * l[1]) / det;
  return c;
}

// The two per-node terms from the 2.13 16-node points: a large and a small accumulation
// (128 and 2 micro-steps) separate the slowdown of every micro-step from the per-step cost.
Calibration network_fit() {
  Calibration c = attention_fit();
  c.mfu = fit_mfu(find_point("bert-large", "2.13.0", PointRole::kMicroStep), c);
  const auto& weak = find_point("bert-large", "2.13.0", PointRole::kNetworkFit, 1048576);
  const auto& strong = find_point("bert-large", "2.13.0", PointRole::kNetworkFit, 16384);
  const StepForecast a = forecast_step(published_shape(weak), trn1_hardware(), c);
  const StepForecast b = forecast_step(published_shape(strong), trn1_hardware(), c);
  // published = compute x u + allreduce + optimizer + v, u = 1 + g k, v = g f, g = log2(16)
  const double ra = published_step_s(weak) - a.allreduce_s - a.optimizer_s;
  const double rb = published_step_s(strong) - b.allreduce_s - b.optimizer_s;
  const double u = (ra - rb) / (a.compute_s - b.compute_s);
  const double v = ra - a.compute_s * u;
  const double growth = node_growth(weak.nodes);
  c.slowdown_per_doubling = (u - 1) / growth;
  c.step_s_per_doubling = v / growth;
  return c;
}

constexpr std::string_view kNewestBertRelease = "2.28.0";

const PublishedPoint& newest_bert_micro_step() {
  return find_point("bert-large", kNewestBertRelease, PointRole::kMicroStep);
}

}  // namespace

StepShape published_shape(const PublishedPoint& p) {
  StepShape s;
  s.nodes = p.nodes;
  s.workers_per_node = 32;
  s.tensor_parallel = p.tensor_parallel;
  s.pipeline_parallel = p.pipeline_parallel;
  s.data_parallel = p.nodes * 32 / (p.tensor_parallel * p.pipeline_parallel);
  s.micro_batch = p.micro_batch;
  s.grad_accum = std::max<std::int64_t>(1, p.global_batch / (p.micro_batch * s.data_parallel));
  s.global_batch = p.global_batch;
  set_model_work(s, shape_named(p.model), p.seq_len, p.optimizer.empty() ? "adamw" : p.optimizer);
  return s;
}

Calibration published_calibration(std::string_view family) {
  Calibration c = network_fit();
  if (family == "bert") {
    c.mfu = fit_mfu(newest_bert_micro_step(), c);
    return c;
  }
  if (family == "llama") {
    // All published Llama points are at seq 4,096: the attention's cost is inside the fitted
    // MFU (neuronx-distributed's Llama runs a fused flash-attention kernel).
    c.attention_bytes_per_score = 0;
    c.mfu = fit_mfu(find_point("llama2-7b", "2.16.1", PointRole::kFamilyFit), c);
    return c;
  }
  throw Error("no published calibration for the " + std::string(family) + " family");
}

std::string published_calibration_text(std::string_view family) {
  const Calibration c = published_calibration(family);
  std::ostringstream out;
  out.precision(3);
  out << "MFU " << 100 * c.mfu << "% ("
      << (family == "llama" ? "Llama 2 7B, 16 nodes, Neuron 2.16.1"
                            : "BERT-Large, 1 node, Neuron " + std::string(kNewestBertRelease))
      << ")";
  if (c.attention_bytes_per_score > 0) {
    out << "; " << c.attention_bytes_per_score
        << " B of memory traffic per attention score (BERT-Large phase 1 and 2, 1 node, Neuron "
           "2.3.0)";
  }
  out << "; per doubling of the nodes: micro-steps " << 100 * c.slowdown_per_doubling
      << "% slower and " << c.step_s_per_doubling
      << " s per step (BERT-Large 16 nodes, Neuron 2.13.0)";
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
      c.mfu = fit_mfu(micro_step_point(p), c);
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

ValidationSummary summarize_validation(const std::vector<ValidationRow>& rows,
                                       bool bundled_shapes_only) {
  ValidationSummary summary;
  std::vector<double> errors;
  for (const auto& row : rows) {
    if (bundled_shapes_only && !bundled_profile_shape(*row.point)) continue;
    errors.push_back(std::abs(row.error));
    if (summary.worst == nullptr || std::abs(row.error) > std::abs(summary.worst->error)) {
      summary.worst = &row;
    }
  }
  summary.points = errors.size();
  if (errors.empty()) return summary;
  std::sort(errors.begin(), errors.end());
  const std::size_t mid = errors.size() / 2;
  summary.median_abs_error =
      errors.size() % 2 == 1 ? errors[mid] : (errors[mid - 1] + errors[mid]) / 2;
  return summary;
}

}  // namespace trn::forecast
