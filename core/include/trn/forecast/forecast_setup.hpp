#pragma once

#include <optional>
#include <string>

#include "trn/forecast/model_shape.hpp"
#include "trn/forecast/node_hardware.hpp"
#include "trn/forecast/run_measurement.hpp"
#include "trn/forecast/step_model.hpp"
#include "trn/plan/plan.hpp"

namespace trn::forecast {

// Everything a forecast assumes besides the plan: printed as the header of every sweep.
struct ForecastSetup {
  const ModelShape* model = nullptr;
  std::int64_t seq_len = 0;
  NodeHardware hardware;
  Calibration calibration;
  std::string calibrated_from;  // which published points or which run
  // The largest node count the calibration saw (the published points', or the measured
  // run's): rows beyond it are extrapolations and say so.
  std::int64_t trusted_nodes = 0;
  std::string trusted_from;  // what set trusted_nodes, in words
};

// Prices the user gives instead of the defaults (USD per node-hour).
struct PriceOverride {
  std::optional<double> on_demand;
  std::optional<double> reserved;
};

// The forecast's setup for `plan` (its forecast_model, seq_len and instance type), calibrated
// to `measured` when given, else to Neuron's published results. nullopt, with `why_not` set,
// when nothing can be forecast: no forecast_model, no seq_len, or nodes without a published
// calibration (CPU nodes, trn2) and no measured run.
std::optional<ForecastSetup> forecast_setup(const plan::Plan& plan,
                                            const std::optional<RunMeasurement>& measured,
                                            const PriceOverride& prices, std::string& why_not);

// The step shape of a plan under a setup.
StepShape step_shape(const plan::Plan& plan, const ForecastSetup& setup);

}  // namespace trn::forecast
