#include "trn/forecast/sweep.hpp"

#include <algorithm>
#include <set>

#include "trn/common/error.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/forecast/step_model.hpp"
#include "trn/plan/profile_keys.hpp"

namespace trn::forecast {
namespace {

constexpr std::size_t kMaxCounts = 4096;

[[noreturn]] void bad_sweep(std::string_view text, const std::string& problem) {
  throw Error("--sweep '" + std::string(text) + "': " + problem +
              ": give node counts and ranges such as 1,2,4,8,16 or 1-64");
}

std::int64_t node_count(std::string_view text, std::string_view word) {
  const auto value = parse_whole_number(word);
  if (!value) bad_sweep(text, "'" + std::string(word) + "' is not a whole number");
  if (*value < 1 || *value > plan::kMaxProfileNodes) {
    bad_sweep(text,
              std::string(word) + " is out of range 1-" + std::to_string(plan::kMaxProfileNodes));
  }
  return *value;
}

// The plan's message without what the sweep's row already says (the profile and node count)
// and without the list of counts that work (the sweep shows them).
std::string short_reason(const std::string& message, std::int64_t nodes) {
  std::string reason = message;
  const std::string on = " on " + std::to_string(nodes) + (nodes == 1 ? " node: " : " nodes: ");
  if (const auto at = reason.find(on); at != std::string::npos) reason.erase(0, at + on.size());
  if (const auto at = reason.find("; node counts that work"); at != std::string::npos) {
    reason.erase(at);
  }
  return reason;
}

}  // namespace

std::vector<std::int64_t> parse_node_counts(std::string_view text) {
  std::set<std::int64_t> counts;
  if (text.empty()) bad_sweep(text, "no node counts");
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      counts.insert(node_count(text, item));
    } else {
      const std::int64_t first = node_count(text, item.substr(0, dash));
      const std::int64_t last = node_count(text, item.substr(dash + 1));
      if (last < first) bad_sweep(text, "the range " + std::string(item) + " runs backwards");
      if (static_cast<std::size_t>(last - first) >= kMaxCounts) {
        bad_sweep(text, "more than " + std::to_string(kMaxCounts) + " node counts");
      }
      for (std::int64_t n = first; n <= last; ++n) counts.insert(n);
    }
    if (counts.size() > kMaxCounts) {
      bad_sweep(text, "more than " + std::to_string(kMaxCounts) + " node counts");
    }
    start = comma + 1;
  }
  return {counts.begin(), counts.end()};
}

TrainingCost training_cost(const plan::Plan& plan, const StepForecast& step,
                           const NodeHardware& hardware) {
  TrainingCost cost;
  cost.train_s = static_cast<double>(plan.steps) * step.step_s;
  const double node_hours = static_cast<double>(plan.nodes) * cost.train_s / 3600;
  cost.on_demand = node_hours * hardware.price_on_demand;
  cost.reserved = node_hours * hardware.price_reserved;
  return cost;
}

std::vector<SweepRow> sweep(const plan::Profile& profile, const plan::PlanRequest& request,
                            const std::vector<std::int64_t>& counts, const ForecastSetup& setup) {
  std::vector<SweepRow> rows;
  double base_per_node = 0;
  for (const std::int64_t nodes : counts) {
    SweepRow row;
    row.nodes = nodes;
    plan::PlanRequest at = request;
    at.cluster.nodes = nodes;
    at.cluster.node_names.clear();
    try {
      const plan::Plan plan = plan::make_plan(profile, at);
      row.workers = plan.world_size;
      row.tensor_parallel = plan.tensor_parallel;
      row.pipeline_parallel = plan.pipeline_parallel;
      row.data_parallel = plan.data_parallel;
      row.grad_accum = plan.grad_accum;
      row.global_batch = plan.global_batch;
      row.step = forecast_step(step_shape(plan, setup), setup.hardware, setup.calibration);
      const TrainingCost cost = training_cost(plan, row.step, setup.hardware);
      row.train_s = cost.train_s;
      row.cost_on_demand = cost.on_demand;
      row.cost_reserved = cost.reserved;
      const double per_node = row.step.seq_per_s / static_cast<double>(nodes);
      if (base_per_node == 0) base_per_node = per_node;
      row.efficiency = per_node / base_per_node;
      row.extrapolated = nodes > setup.trusted_nodes;
    } catch (const Error& e) {
      row.infeasible = short_reason(e.what(), nodes);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace trn::forecast
