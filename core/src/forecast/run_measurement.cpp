#include "trn/forecast/run_measurement.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "trn/forecast/model_shape.hpp"

namespace trn::forecast {
namespace {

constexpr std::string_view kFix =
    "calibrate from the run directory of a run that trn-run finished (its results.json holds "
    "the trainer's step-phase medians and the plan)";

[[noreturn]] void bad_results(const std::filesystem::path& file, const std::string& problem) {
  throw Error(file.string() + ": " + problem + ": " + std::string(kFix));
}

// "results.parameters.micro_batch"
std::string dotted(std::initializer_list<const char*> path) {
  std::string name;
  for (const char* key : path) name.append(name.empty() ? "" : ".").append(key);
  return name;
}

// Names the first key that is missing ("no results.phase_medians").
const nlohmann::json& entry(const nlohmann::json& doc, const std::filesystem::path& file,
                            std::initializer_list<const char*> path) {
  const nlohmann::json* at = &doc;
  std::string name;
  for (const char* key : path) {
    name.append(name.empty() ? "" : ".").append(key);
    if (!at->is_object() || !at->contains(key)) bad_results(file, "no " + name);
    at = &(*at)[key];
  }
  return *at;
}

// A measured time in seconds: at most this (11.6 days per step), so that no forecast made from
// it overflows to inf or NaN.
constexpr double kMaxSeconds = 1e6;

double positive(const nlohmann::json& doc, const std::filesystem::path& file,
                std::initializer_list<const char*> path, bool zero_allowed = false,
                double maximum = kMaxSeconds) {
  const nlohmann::json& value = entry(doc, file, path);
  if (!value.is_number() || value.get<double>() < 0 ||
      (!zero_allowed && value.get<double>() == 0) || !(value.get<double>() <= maximum)) {
    std::ostringstream most;
    most << maximum;
    bad_results(file, dotted(path) + " is " + value.dump() + ", not a number above 0 and at most " +
                          most.str());
  }
  return value.get<double>();
}

std::int64_t count(const nlohmann::json& doc, const std::filesystem::path& file,
                   std::initializer_list<const char*> path) {
  const nlohmann::json& value = entry(doc, file, path);
  if (!value.is_number_integer() || value.get<std::int64_t>() < 1 ||
      value.get<std::int64_t>() > (std::int64_t{1} << 40)) {
    bad_results(file, dotted(path) + " is " + value.dump() + ", not a count");
  }
  return value.get<std::int64_t>();
}

// FLOPs and parameters by the same formulas as a forecast, where the plan names the model, so
// that a run calibrates a plan of another model size consistently; else the trainer's own.
void model_size(const nlohmann::json& doc, const std::filesystem::path& file, StepShape& shape) {
  const auto& plan = entry(doc, file, {"plan"});
  if (plan.contains("forecast_model") && plan["forecast_model"].is_string() &&
      plan.contains("seq_len") && plan["seq_len"].is_number_integer()) {
    if (const ModelShape* model = find_model_shape(plan["forecast_model"].get<std::string>())) {
      shape.flops_per_sequence =
          training_flops_per_sequence(*model, plan["seq_len"].get<std::int64_t>());
      shape.parameters = parameter_count(*model);
      return;
    }
  }
  shape.flops_per_sequence =
      positive(doc, file, {"results", "parameters", "flops_per_sequence"}, false, 1e18);
  shape.parameters = positive(doc, file, {"results", "parameters", "parameter_count"}, false, 1e14);
}

}  // namespace

RunMeasurement read_run_measurement(const std::filesystem::path& run_dir) {
  RunMeasurement run;
  run.file = run_dir / "results.json";
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read_text(run.file, kFix));
  } catch (const nlohmann::json::exception& e) {
    bad_results(run.file, std::string("not valid JSON (") + e.what() + ")");
  }
  StepShape& s = run.shape;
  s.nodes = count(doc, run.file, {"plan", "nodes"});
  s.workers_per_node = count(doc, run.file, {"plan", "workers_per_node"});
  s.tensor_parallel = count(doc, run.file, {"plan", "tensor_parallel"});
  s.pipeline_parallel = count(doc, run.file, {"plan", "pipeline_parallel"});
  s.data_parallel = count(doc, run.file, {"plan", "data_parallel"});
  s.micro_batch = count(doc, run.file, {"results", "parameters", "micro_batch"});
  s.grad_accum = count(doc, run.file, {"results", "parameters", "accumulation"});
  s.global_batch = count(doc, run.file, {"results", "parameters", "global_batch"});
  model_size(doc, run.file, s);
  const auto& type = entry(doc, run.file, {"plan", "instance_type"});
  if (type.is_string()) run.instance_type = type.get<std::string>();
  run.step_s = positive(doc, run.file, {"results", "step_time_median_s"});
  run.micro_step_s = positive(doc, run.file, {"results", "phase_medians", "micro_step_s"});
  run.allreduce_s = positive(doc, run.file, {"results", "phase_medians", "allreduce_s"}, true);
  run.optimizer_s = positive(doc, run.file, {"results", "phase_medians", "optimizer_s"}, true);
  return run;
}

Calibration calibration_from_run(const RunMeasurement& run, NodeHardware& hardware) {
  const StepShape& s = run.shape;
  const double model_parallel = static_cast<double>(s.tensor_parallel * s.pipeline_parallel);
  Calibration c;
  c.measured_micro_step_s = run.micro_step_s;
  c.measured_work = static_cast<double>(s.micro_batch) * s.flops_per_sequence / model_parallel;
  c.measured_optimizer_s = run.optimizer_s;
  c.measured_parameters = s.parameters / model_parallel;
  if (s.nodes == 1) {
    c.fixed_step_s = std::max(0.0, run.step_s - forecast_step(s, hardware, c).step_s);
  } else if (run.allreduce_s > 0) {
    // The bandwidth that makes the all-reduce model take what the run's all-reduce took.
    NodeHardware probe = hardware;
    probe.inter_node_bytes_per_s = 1;
    probe.latency_s = 0;
    const double at_one_byte_per_s = forecast_step(s, probe, c).allreduce_s;
    hardware.inter_node_bytes_per_s = at_one_byte_per_s / run.allreduce_s;
    hardware.latency_s = 0;
    // What the step took beyond its measured parts, per doubling of the nodes.
    const double parts = forecast_step(s, hardware, c).step_s;
    c.step_s_per_doubling = std::max(0.0, (run.step_s - parts) / node_growth(s.nodes));
  }
  return c;
}

}  // namespace trn::forecast
