#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trn/forecast/forecast_setup.hpp"
#include "trn/plan/plan.hpp"

namespace trn::forecast {

// "1,2,4,8,16", "1-64" or both ("1-8,16"): ascending, without repeats. Throws trn::Error naming
// --sweep for anything else, and for counts outside 1..65536 or more than 4096 of them.
std::vector<std::int64_t> parse_node_counts(std::string_view text);

// One node count of a sweep: the plan's numbers and the forecast, or why it cannot run.
struct SweepRow {
  std::int64_t nodes = 0;
  std::string infeasible;  // "" when it plans
  std::int64_t workers = 0;
  std::int64_t tensor_parallel = 1;
  std::int64_t pipeline_parallel = 1;
  std::int64_t data_parallel = 0;
  std::int64_t grad_accum = 0;
  std::int64_t global_batch = 0;
  StepForecast step;
  double efficiency = 0;      // seq/s per node against the sweep's smallest count that plans
  bool extrapolated = false;  // beyond ForecastSetup::trusted_nodes
  double train_s = 0;         // the profile's steps
  double cost_on_demand = 0;
  double cost_reserved = 0;
};

struct TrainingCost {
  double train_s = 0;
  double on_demand = 0;
  double reserved = 0;
};
TrainingCost training_cost(const plan::Plan& plan, const StepForecast& step,
                           const NodeHardware& hardware);

// Plans `profile` on each count (the plan's own rules decide what is feasible) and forecasts it.
std::vector<SweepRow> sweep(const plan::Profile& profile, const plan::PlanRequest& request,
                            const std::vector<std::int64_t>& counts, const ForecastSetup& setup);

}  // namespace trn::forecast
