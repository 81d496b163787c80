#include "trn/forecast/forecast_setup.hpp"

#include <algorithm>

#include "trn/common/error.hpp"
#include "trn/forecast/published_calibration.hpp"
#include "trn/forecast/step_work.hpp"

namespace trn::forecast {
namespace {

// Nodes without a published figure (CPU nodes, the local cluster): only a measured run can
// calibrate them; their network is taken as 10 Gb/s Ethernet until a multi-node run measures it.
NodeHardware unpublished_nodes(const plan::Plan& plan) {
  NodeHardware hw;
  hw.instance_type = plan.instance_type.empty() ? "CPU" : plan.instance_type;
  hw.workers = plan.workers_per_node;
  hw.inter_node_bytes_per_s = 10e9 / 8;
  hw.latency_s = 50e-6;
  hw.price_source = "no price known: pass --price-on-demand and --price-reserved";
  return hw;
}

std::string type_text(const std::string& type) { return type.empty() ? "CPU" : type; }

}  // namespace

std::optional<ForecastSetup> forecast_setup(const plan::Plan& plan,
                                            const std::optional<RunMeasurement>& measured,
                                            const PriceOverride& prices, std::string& why_not) {
  if (plan.forecast_model.empty()) {
    why_not = "profile " + plan.profile + " sets no forecast_model";
    return std::nullopt;
  }
  if (!plan.seq_len) {
    why_not = "profile " + plan.profile + " sets no seq_len";
    return std::nullopt;
  }
  ForecastSetup setup;
  setup.model = find_model_shape(plan.forecast_model);
  if (setup.model == nullptr) throw Error("forecast_model " + plan.forecast_model + " is unknown");
  setup.seq_len = *plan.seq_len;
  const auto published = node_hardware(plan.instance_type);
  if (measured) {
    if (measured->instance_type != plan.instance_type) {
      throw Error("--calibrate " + measured->file.parent_path().string() + ": that run was on " +
                  type_text(measured->instance_type) + " nodes and this plan is for " +
                  type_text(plan.instance_type) +
                  " nodes: calibrate from a run on the nodes you plan for");
    }
    setup.hardware = published.value_or(unpublished_nodes(plan));
    setup.calibration = calibration_from_run(*measured, setup.hardware);
    setup.calibrated_from = "measured run " + measured->file.string() + " (" +
                            std::to_string(measured->shape.nodes) + " node(s))";
    setup.trusted_nodes = measured->shape.nodes;
    setup.trusted_from = "the measured run";
  } else {
    if (!published) {
      why_not = type_text(plan.instance_type) +
                " nodes have no published calibration: pass --calibrate RUN_DIR (a finished run "
                "on these nodes)";
      return std::nullopt;
    }
    setup.hardware = *published;
    setup.calibration = published_calibration(setup.model->family);
    setup.calibrated_from =
        "Neuron's published trn1 results: " + published_calibration_text(setup.model->family);
    for (const auto& point : published_points()) {
      setup.trusted_nodes = std::max(setup.trusted_nodes, point.nodes);
    }
    setup.trusted_from = "the largest published trn1 point";
  }
  if (prices.on_demand) setup.hardware.price_on_demand = *prices.on_demand;
  if (prices.reserved) setup.hardware.price_reserved = *prices.reserved;
  return setup;
}

StepShape step_shape(const plan::Plan& plan, const ForecastSetup& setup) {
  StepShape s;
  s.nodes = plan.nodes;
  s.workers_per_node = plan.workers_per_node;
  s.tensor_parallel = plan.tensor_parallel;
  s.pipeline_parallel = plan.pipeline_parallel;
  s.data_parallel = plan.data_parallel;
  s.micro_batch = plan.micro_batch;
  s.grad_accum = plan.grad_accum;
  s.global_batch = plan.global_batch;
  set_model_work(s, *setup.model, setup.seq_len, plan.optimizer);
  return s;
}

}  // namespace trn::forecast
