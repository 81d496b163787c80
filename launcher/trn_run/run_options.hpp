#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plan_forecast.hpp"
#include "run_command.hpp"
#include "trn/run/launch_environment.hpp"

namespace trn::launcher {

// trn-run's and trn-compile's command line, as the user gave it.
struct RunOptions {
  std::string profile;
  std::vector<std::string> sets;
  std::vector<std::pair<std::string, std::string>> flags;  // common keys given as flags
  std::optional<unsigned> nodes;
  std::optional<std::string> instance_type;  // the compute nodes' type, for plans without them
  std::optional<std::string> run_dir;        // --run-dir or --resume: continue a run there
  bool resume = false;                       // --resume: run_dir must hold an earlier run
  bool plan_only = false;
  bool json = false;
  bool force_compile = false;
  bool health_check = true;  // --no-health-check turns the gate off
  std::optional<std::string> cache_shared;
  std::optional<run::Launcher> launcher;  // --launcher: who started trn-run, else detected
  std::string fsroot = "/";
  bool fsroot_given = false;  // --fsroot; else a job's nodes say which tree spank_trn reads
  std::vector<std::string> trainer_args;
  ForecastOptions forecast;
};

// The options before `--` (everything after it is the trainer's). --help prints the usage of
// `mode`'s tool and exits 0; bad input throws trn::Error naming the option and the fix.
RunOptions parse_run_options(const std::vector<std::string>& args, Mode mode);

}  // namespace trn::launcher
