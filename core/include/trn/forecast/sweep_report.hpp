#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "trn/forecast/forecast_setup.hpp"
#include "trn/forecast/sweep.hpp"

namespace trn::forecast {

// The sweep as a table for people: a header with every assumption and the validation against
// the published points, then one row per node count (or why it cannot run).
std::string render_sweep_text(const plan::Plan& plan, const ForecastSetup& setup,
                              const std::vector<SweepRow>& rows);
nlohmann::json sweep_json(const plan::Plan& plan, const ForecastSetup& setup,
                          const std::vector<SweepRow>& rows);
std::string render_sweep_csv(const std::vector<SweepRow>& rows);

// "forecast: 3,826.6 seq/s, 4.28 s per step; 28,125 steps in 1d 09:27; $719 on demand, $421
// reserved (1 node x trn1.32xlarge)" - the line at the top of every trn-run plan.
std::string forecast_line(const plan::Plan& plan, const ForecastSetup& setup);

// The forecast of one plan as results.json records it beside what the run measured.
nlohmann::json forecast_json(const plan::Plan& plan, const ForecastSetup& setup);

// "1d 09:27:05", "2:05:00", "0:00:42"
std::string duration_text(double seconds);

}  // namespace trn::forecast
