#include "plan_forecast.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "common/exit_codes.hpp"
#include "install_layout.hpp"
#include "step_setup.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/error.hpp"
#include "trn/common/process.hpp"
#include "trn/common/text_file.hpp"
#include "trn/forecast/run_measurement.hpp"
#include "trn/forecast/sweep.hpp"
#include "trn/forecast/sweep_report.hpp"

namespace trn::launcher {

std::optional<forecast::ForecastSetup> plan_forecast(const plan::Plan& plan,
                                                     const ForecastOptions& options,
                                                     std::string& why_not) {
  std::optional<forecast::RunMeasurement> measured;
  if (options.calibrate) measured = forecast::read_run_measurement(*options.calibrate);
  return forecast::forecast_setup(plan, measured, options.prices, why_not);
}

void check_png_file(const std::string& file) {
  namespace fs = std::filesystem;
  const fs::path path(file);
  std::error_code error;
  if (fs::is_directory(path, error)) {
    throw Error("--png " + file + ": is a folder: name the PNG file (e.g. --png " +
                (path / "sweep.png").string() + ")");
  }
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::exists(folder, error)) {
    throw Error("--png " + file + ": the folder " + folder.string() +
                " does not exist: make it first, or name a file in another folder");
  }
  if (!fs::is_directory(folder, error)) {
    throw Error("--png " + file + ": " + folder.string() + " is not a folder: name another file");
  }
  // Root passes every permission check, so only a real file shows that the folder takes one.
  std::string probe = (folder / ".trn-run-png-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) {
    throw Error("--png " + file + ": cannot write in " + folder.string() + " (" +
                std::strerror(errno) + "): name a file in a folder you can write");
  }
  close(fd);
  fs::remove(probe, error);
}

std::string forecast_headline(const plan::Plan& plan,
                              const std::optional<forecast::ForecastSetup>& setup,
                              const std::string& why_not) {
  if (!setup) return "forecast: none (" + why_not + ")";
  return forecast::forecast_line(plan, *setup);
}

namespace {

// The plot is drawn by the trainer package's matplotlib code from the sweep's JSON.
void write_png(const std::string& file, const nlohmann::json& sweep,
               const std::filesystem::path& trainer_dir) {
  const std::string json_file = file + ".json";
  write_file_atomically(json_file, sweep.dump(2) + "\n", 0644);
  ProcessOptions process;
  process.stdin_dev_null = true;
  // The plotter's messages go to stderr: stdout holds the sweep (--json, --csv) alone.
  process.output_fd = STDERR_FILENO;
  process.extra_env.emplace(env::kPythonPath, trainer_python_path(trainer_dir));
  // The training environment's Python, which has the trainer's packages; else PATH's python3.
  const auto venv_bin = training_venv_bin();
  const std::string python = venv_bin ? (*venv_bin / "python3").string() : "python3";
  const int status = wait_process(start_process(
      {python, "-m", "trn_trainer", "plot-sweep", "--input", json_file, "--output", file},
      process));
  if (status != 0) {
    throw Error("--png " + file + ": the plot was not drawn (" + python +
                " -m trn_trainer plot-sweep exited " + std::to_string(status) +
                "): does that Python have matplotlib? Install it into the training environment "
                "(TRN_TRAINING_VENV) or give one that has it");
  }
  std::cerr << "trn-run: plot in " << file << " (data in " << json_file << ")\n";
}

}  // namespace

int print_sweep(const plan::Profile& profile, const plan::PlanRequest& request,
                const plan::Plan& plan, const ForecastOptions& options, bool json,
                const std::filesystem::path& trainer_dir) {
  const auto counts = forecast::parse_node_counts(*options.sweep);
  std::string why_not;
  const auto setup = plan_forecast(plan, options, why_not);
  if (!setup) {
    // Only the missing key is worth naming: a profile that sets it needs another calibration.
    throw Error("--sweep: nothing to forecast: " + why_not +
                (plan.forecast_model.empty()
                     ? " (set forecast_model in the profile, or --set forecast_model=bert-large)"
                     : ""));
  }
  const auto rows = forecast::sweep(profile, request, counts, *setup);
  const auto doc = forecast::sweep_json(plan, *setup, rows);
  if (json) {
    std::cout << doc.dump(2) << '\n';
  } else if (options.csv) {
    std::cout << forecast::render_sweep_csv(rows);
  } else {
    std::cout << forecast::render_sweep_text(plan, *setup, rows);
  }
  if (options.png) write_png(*options.png, doc, trainer_dir);
  return kSuccess;
}

nlohmann::json forecast_vs_measured(const nlohmann::json& predicted,
                                    const nlohmann::json& results) {
  nlohmann::json out = predicted;
  const auto metrics = results.find("results");
  if (metrics == results.end() || !metrics->is_object() || !metrics->contains("metrics"))
    return out;
  for (const auto& metric : (*metrics)["metrics"]) {
    if (metric.value("MetricName", "") != "Average throughput") continue;
    const auto& value = metric["MeasuredValue"];
    if (!value.is_number() || value.get<double>() <= 0) break;
    const double measured = value.get<double>();
    out["measured_seq_per_s"] = measured;
    const double forecast = predicted["step"]["seq_per_s"].get<double>();
    out["error"] = forecast / measured - 1;  // the prediction's, as in the sweep's validation
    break;
  }
  return out;
}

}  // namespace trn::launcher
