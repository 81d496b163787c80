#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "trn/forecast/forecast_setup.hpp"
#include "trn/plan/plan.hpp"

namespace trn::launcher {

// trn-run's forecast options (docs/planner.md).
struct ForecastOptions {
  std::optional<std::string> sweep;      // --sweep COUNTS
  std::optional<std::string> calibrate;  // --calibrate RUN_DIR
  std::optional<std::string> png;        // --png FILE: the sweep's efficiency and cost plot
  bool csv = false;
  forecast::PriceOverride prices;
};

// The forecast setup of `plan` under the options; nullopt with `why_not` set when there is none.
// A --calibrate run that cannot be read is bad input (trn::Error).
std::optional<forecast::ForecastSetup> plan_forecast(const plan::Plan& plan,
                                                     const ForecastOptions& options,
                                                     std::string& why_not);

// --png FILE names a file trn-run can write: a folder, a missing or unwritable folder is bad
// input (trn::Error naming the path), found before anything is planned.
void check_png_file(const std::string& file);

// "forecast: ..." or "forecast: none (why)", the first line of every plan trn-run prints, for
// what plan_forecast returned.
std::string forecast_headline(const plan::Plan& plan,
                              const std::optional<forecast::ForecastSetup>& setup,
                              const std::string& why_not);

// trn-run --plan --sweep: the table (or --json, --csv) on stdout, and the --png plot (drawn by
// the trn_trainer package in `trainer_dir`). The profile is planned on each count as `request`
// would plan it. Returns trn-run's exit code.
int print_sweep(const plan::Profile& profile, const plan::PlanRequest& request,
                const plan::Plan& plan, const ForecastOptions& options, bool json,
                const std::filesystem::path& trainer_dir);

// results.json's "forecast": what was predicted for the run and, once the trainer wrote its
// results, what it measured (average seq/s over the run) and the prediction's error.
nlohmann::json forecast_vs_measured(const nlohmann::json& predicted, const nlohmann::json& results);

}  // namespace trn::launcher
