#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "install_layout.hpp"
#include "run_nodes.hpp"
#include "run_options.hpp"
#include "run_start.hpp"
#include "trn/plan/plan.hpp"
#include "trn/plan/profile.hpp"

namespace trn::launcher {

// The profile as this run uses it: found on the profile path, then the launcher's defaults
// (SageMaker's checkpoint folder), the flags and --set overrides applied in that order.
plan::Profile load_run_profile(const RunOptions& options, const run::LaunchEnvironment& launch,
                               const InstallLayout& layout);

struct RunPlan {
  plan::PlanRequest request;  // what the plan was made from; replanned from after a node is lost
  plan::Plan plan;
  std::vector<std::string> job_order;  // the nodes' names in the job's order, spares last
  std::size_t spares = 0;              // the profile's spare_nodes
};

// Stage 3: the plan of the profile on `nodes` (the job's last spare_nodes kept as spares).
RunPlan plan_run(const RunOptions& options, const RunStart& start, const plan::Profile& profile,
                 const RunNodes& nodes);

// What the plan cannot do as started, checked before it is printed or run: a profile that
// launches with mpirun under a launcher without MPI, a --resume/--run-dir directory whose
// earlier plan does not fit, and (before a run) a Slurm job that holds too little of its nodes
// for the plan's steps (no --exclusive). Throws trn::Error.
void check_plan_runs_here(const RunOptions& options, const RunStart& start, const RunNodes& nodes,
                          const RunPlan& run);

// Stage 4 (--plan): the plan with its forecast, as text or --json, or the --sweep of it.
// Returns trn-run's exit code.
int print_plan_or_sweep(const RunOptions& options, const RunStart& start,
                        const plan::Profile& profile, const RunNodes& nodes, const RunPlan& run,
                        const InstallLayout& layout);

// Before anything runs: the run directory with plan.json (written by the main node), the plan
// printed, and how to continue the run. Returns the plan's forecast for results.json.
std::optional<nlohmann::json> announce_run(const RunOptions& options, const RunStart& start,
                                           const RunNodes& nodes, const plan::Plan& plan);

}  // namespace trn::launcher
