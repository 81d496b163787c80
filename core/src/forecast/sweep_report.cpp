#include "trn/forecast/sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "trn/forecast/published_calibration.hpp"

namespace trn::forecast {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// 57407.9 -> "57,407.9"; thousands separated so that large figures read at a glance.
std::string grouped(double value, int decimals) {
  const std::string text = fixed(value, decimals);
  const std::size_t sign = text[0] == '-' ? 1 : 0;
  const std::size_t digits_end = std::min(text.find('.'), text.size());
  std::string out = text.substr(0, sign);
  for (std::size_t i = sign; i < digits_end; ++i) {
    if (i > sign && (digits_end - i) % 3 == 0) out += ',';
    out += text[i];
  }
  out.append(text, digits_end, std::string::npos);
  return out;
}

std::string money(double usd) {
  if (usd <= 0) return "n/a";
  std::string text = "$";
  return text.append(grouped(usd, 0));
}

std::string hourly(double usd) {
  if (usd <= 0) return "n/a";
  std::string text = "$";
  return text.append(fixed(usd, 2));
}

std::string percent(double fraction, int decimals = 1) {
  return fixed(100 * fraction, decimals) + "%";
}

std::string signed_percent(double fraction) {
  std::string text = fraction >= 0 ? "+" : "";
  return text.append(percent(fraction));
}

std::string gb_per_s(double bytes_per_s) { return fixed(bytes_per_s / 1e9, 1) + " GB/s"; }

// "+19.0% (bert-large Neuron 2.14.0, 16 nodes, seq 512)"
std::string worst_text(const ValidationSummary& summary) {
  if (summary.worst == nullptr) return "n/a";
  const PublishedPoint& p = *summary.worst->point;
  return signed_percent(summary.worst->error) + " (" + std::string(p.model) + " Neuron " +
         std::string(p.sdk) + ", " + std::string(p.framework) + ", " + std::to_string(p.nodes) +
         (p.nodes == 1 ? " node" : " nodes") + ", seq " + std::to_string(p.seq_len) + ")";
}

std::vector<std::string> assumption_lines(const plan::Plan& plan, const ForecastSetup& setup) {
  const NodeHardware& hw = setup.hardware;
  const Calibration& c = setup.calibration;
  std::vector<std::string> lines;
  lines.push_back("model " + std::string(setup.model->name) + ", seq " +
                  std::to_string(setup.seq_len) + ": " +
                  grouped(parameter_count(*setup.model) / 1e6, 0) + "M parameters, " +
                  fixed(training_flops_per_sequence(*setup.model, setup.seq_len) / 1e9, 1) +
                  " GFLOP per sequence (training)");
  std::string nodes =
      "nodes " + hw.instance_type + ", " + std::to_string(plan.workers_per_node) + " workers each";
  if (hw.peak_flops_per_worker > 0) {
    nodes += ", " + fixed(hw.peak_flops_per_worker / 1e12, 1) + " TFLOP/s bf16 peak per worker";
  }
  lines.push_back(nodes);
  std::string network = "all-reduce: ring, " + fixed(c.gradient_bytes_per_parameter, 0) +
                        " B of gradient per parameter";
  if (hw.intra_node_bytes_per_s > 0)
    network += ", " + gb_per_s(hw.intra_node_bytes_per_s) + " in a node";
  network += ", " + gb_per_s(hw.inter_node_bytes_per_s) + " per node across nodes, " +
             fixed(hw.latency_s * 1e6, 0) + " us per ring step";
  lines.push_back(network);
  if (c.measured_optimizer_s) {
    lines.push_back("optimizer: " + plan.optimizer + ", " + fixed(*c.measured_optimizer_s, 4) +
                    " s per step, measured");
  } else {
    lines.push_back("optimizer: " + plan.optimizer + ", " +
                    fixed(optimizer_bytes_per_parameter(plan.optimizer), 0) +
                    " B per parameter at " + gb_per_s(hw.memory_bytes_per_s_per_worker) +
                    " per worker");
  }
  std::string micro_step = "micro-step: ";
  if (c.measured_micro_step_s) {
    micro_step += fixed(*c.measured_micro_step_s, 4) + " s measured";
  } else {
    micro_step += "MFU " + percent(c.mfu) + " of the matrix work";
    if (c.attention_bytes_per_score > 0) {
      micro_step +=
          ", " + fixed(c.attention_bytes_per_score, 0) + " B of memory traffic per attention score";
    }
    micro_step +=
        "; tensor-parallel all-reduces (4 per layer) over the NeuronLink share of a "
        "worker for tp > 1; for pp > 1 each stage's activation and gradient sends and "
        "the pipeline's fill and drain (1F1B)";
  }
  lines.push_back(micro_step);
  lines.push_back("per doubling of the nodes (log2 N, a tree's depth): micro-steps " +
                  percent(c.slowdown_per_doubling, 2) + " slower, " +
                  fixed(c.step_s_per_doubling, 3) + " s per step; fixed " +
                  fixed(c.fixed_step_s, 3) + " s per step");
  lines.push_back("price per node-hour: " + hourly(hw.price_on_demand) + " on demand, " +
                  hourly(hw.price_reserved) + " reserved 1-year (" + hw.price_source + ")");
  lines.push_back("calibrated from " + setup.calibrated_from);
  return lines;
}

nlohmann::json step_json(const StepForecast& s) {
  return {{"micro_step_s", s.micro_step_s}, {"compute_s", s.compute_s},
          {"allreduce_s", s.allreduce_s},   {"optimizer_s", s.optimizer_s},
          {"overhead_s", s.overhead_s},     {"step_s", s.step_s},
          {"seq_per_s", s.seq_per_s}};
}

}  // namespace

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto total = static_cast<long long>(std::llround(seconds));
  const long long days = total / 86400;
  char text[64];
  std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", (total % 86400) / 3600,
                (total % 3600) / 60, total % 60);
  return days > 0 ? std::to_string(days) + "d " + text : text;
}

std::string render_sweep_text(const plan::Plan& plan, const ForecastSetup& setup,
                              const std::vector<SweepRow>& rows) {
  std::ostringstream out;
  out << "forecast for profile " << plan.profile << ": " << plan.steps << " steps, global batch "
      << plan.reference_global_batch << " (" << plan::to_string(plan.scaling) << " scaling)\n";
  for (const auto& line : assumption_lines(plan, setup)) out << "  " << line << '\n';
  const auto validation = validate_published();
  out << "  validation against the " << validation.size()
      << " published trn1 points the model was not fitted to (docs/planner.md#validation):\n";
  for (const bool bundled : {true, false}) {
    const ValidationSummary summary = summarize_validation(validation, bundled);
    out << "    " << (bundled ? "the bundled profiles' shapes" : "all") << ", " << summary.points
        << " points: median error " << percent(summary.median_abs_error) << ", worst "
        << worst_text(summary) << '\n';
  }
  const auto base = std::find_if(rows.begin(), rows.end(),
                                 [](const SweepRow& r) { return r.infeasible.empty(); });
  if (base != rows.end()) {
    out << "  eff: seq/s per node relative to the " << base->nodes << "-node row; rows beyond "
        << setup.trusted_nodes << " nodes (" << setup.trusted_from << ") say \"extrapolated\"\n";
  }
  char header[256];
  std::snprintf(header, sizeof header,
                "%6s %7s %4s %4s %6s %6s %9s %9s %9s %9s %9s %9s %11s %6s %12s %12s %12s\n",
                "nodes", "workers", "tp", "pp", "dp", "accum", "gbs", "step_s", "compute",
                "allreduce", "optim", "overhead", "seq/s", "eff", "time", "on_demand", "reserved");
  out << header;
  for (const auto& r : rows) {
    if (!r.infeasible.empty()) {
      out << std::string(6 - std::min<std::size_t>(6, std::to_string(r.nodes).size()), ' ')
          << r.nodes << "  infeasible: " << r.infeasible << '\n';
      continue;
    }
    char line[512];
    std::snprintf(
        line, sizeof line,
        "%6lld %7lld %4lld %4lld %6lld %6lld %9lld %9.3f %9.3f %9.3f %9.3f %9.3f %11s %6s "
        "%12s %12s %12s\n",
        static_cast<long long>(r.nodes), static_cast<long long>(r.workers),
        static_cast<long long>(r.tensor_parallel), static_cast<long long>(r.pipeline_parallel),
        static_cast<long long>(r.data_parallel), static_cast<long long>(r.grad_accum),
        static_cast<long long>(r.global_batch), r.step.step_s, r.step.compute_s, r.step.allreduce_s,
        r.step.optimizer_s, r.step.overhead_s, grouped(r.step.seq_per_s, 1).c_str(),
        percent(r.efficiency, 0).c_str(), duration_text(r.train_s).c_str(),
        money(r.cost_on_demand).c_str(), money(r.cost_reserved).c_str());
    std::string text = line;
    if (r.extrapolated) text.insert(text.size() - 1, "  extrapolated");
    out << text;
  }
  return out.str();
}

nlohmann::json sweep_json(const plan::Plan& plan, const ForecastSetup& setup,
                          const std::vector<SweepRow>& rows) {
  nlohmann::json doc;
  doc["profile"] = plan.profile;
  doc["steps"] = plan.steps;
  doc["assumptions"] = assumption_lines(plan, setup);
  doc["calibrated_from"] = setup.calibrated_from;
  doc["trusted_nodes"] = setup.trusted_nodes;
  doc["validation"] = nlohmann::json::array();
  const auto validation = validate_published();
  for (const auto& row : validation) {
    doc["validation"].push_back({{"model", row.point->model},
                                 {"neuron", row.point->sdk},
                                 {"framework", row.point->framework},
                                 {"optimizer", row.point->optimizer},
                                 {"nodes", row.point->nodes},
                                 {"tensor_parallel", row.point->tensor_parallel},
                                 {"pipeline_parallel", row.point->pipeline_parallel},
                                 {"seq_len", row.point->seq_len},
                                 {"micro_batch", row.point->micro_batch},
                                 {"global_batch", row.point->global_batch},
                                 {"bundled_profile_shape", bundled_profile_shape(*row.point)},
                                 {"published_seq_per_s", row.point->seq_per_s},
                                 {"predicted_seq_per_s", row.predicted_seq_per_s},
                                 {"error", row.error},
                                 {"source", row.point->source}});
  }
  for (const bool bundled : {true, false}) {
    const ValidationSummary summary = summarize_validation(validation, bundled);
    doc["validation_summary"][bundled ? "bundled_profile_shapes" : "all"] = {
        {"points", summary.points},
        {"median_abs_error", summary.median_abs_error},
        {"worst_error", summary.worst != nullptr ? summary.worst->error : 0.0}};
  }
  doc["rows"] = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json row{{"nodes", r.nodes}};
    if (!r.infeasible.empty()) {
      row["infeasible"] = r.infeasible;
    } else {
      row.update({{"workers", r.workers},
                  {"tensor_parallel", r.tensor_parallel},
                  {"pipeline_parallel", r.pipeline_parallel},
                  {"data_parallel", r.data_parallel},
                  {"grad_accum", r.grad_accum},
                  {"global_batch", r.global_batch},
                  {"step", step_json(r.step)},
                  {"efficiency", r.efficiency},
                  {"extrapolated", r.extrapolated},
                  {"train_s", r.train_s},
                  {"cost_on_demand_usd", r.cost_on_demand},
                  {"cost_reserved_usd", r.cost_reserved}});
    }
    doc["rows"].push_back(std::move(row));
  }
  return doc;
}

std::string render_sweep_csv(const std::vector<SweepRow>& rows) {
  std::ostringstream out;
  out << "nodes,workers,tensor_parallel,pipeline_parallel,data_parallel,grad_accum,global_batch,"
         "step_s,compute_s,allreduce_s,optimizer_s,overhead_s,seq_per_s,efficiency,train_s,"
         "cost_on_demand_usd,cost_reserved_usd,extrapolated,infeasible\n";
  for (const auto& r : rows) {
    if (!r.infeasible.empty()) {
      std::string reason = r.infeasible;
      for (auto& ch : reason) {
        if (ch == '"') ch = '\'';
      }
      out << r.nodes << ",,,,,,,,,,,,,,,,,,\"" << reason << "\"\n";
      continue;
    }
    out << r.nodes << ',' << r.workers << ',' << r.tensor_parallel << ',' << r.pipeline_parallel
        << ',' << r.data_parallel << ',' << r.grad_accum << ',' << r.global_batch << ','
        << fixed(r.step.step_s, 6) << ',' << fixed(r.step.compute_s, 6) << ','
        << fixed(r.step.allreduce_s, 6) << ',' << fixed(r.step.optimizer_s, 6) << ','
        << fixed(r.step.overhead_s, 6) << ',' << fixed(r.step.seq_per_s, 3) << ','
        << fixed(r.efficiency, 4) << ',' << fixed(r.train_s, 1) << ',' << fixed(r.cost_on_demand, 2)
        << ',' << fixed(r.cost_reserved, 2) << ',' << (r.extrapolated ? "true" : "false") << ",\n";
  }
  return out.str();
}

namespace {

// One plan's step and what its steps cost.
std::pair<StepForecast, TrainingCost> plan_forecast(const plan::Plan& plan,
                                                    const ForecastSetup& setup) {
  const StepForecast step =
      forecast_step(step_shape(plan, setup), setup.hardware, setup.calibration);
  return {step, training_cost(plan, step, setup.hardware)};
}

}  // namespace

std::string forecast_line(const plan::Plan& plan, const ForecastSetup& setup) {
  const auto [step, cost] = plan_forecast(plan, setup);
  return "forecast: " + grouped(step.seq_per_s, 1) + " seq/s, " + fixed(step.step_s, 3) +
         " s per step; " + grouped(static_cast<double>(plan.steps), 0) + " steps in " +
         duration_text(cost.train_s) + "; " + money(cost.on_demand) + " on demand, " +
         money(cost.reserved) + " reserved (" + std::to_string(plan.nodes) +
         (plan.nodes == 1 ? " node x " : " nodes x ") + setup.hardware.instance_type + ")";
}

nlohmann::json forecast_json(const plan::Plan& plan, const ForecastSetup& setup) {
  const auto [step, cost] = plan_forecast(plan, setup);
  return {{"step", step_json(step)},
          {"train_s", cost.train_s},
          {"cost_on_demand_usd", cost.on_demand},
          {"cost_reserved_usd", cost.reserved},
          {"calibrated_from", setup.calibrated_from}};
}

}  // namespace trn::forecast
