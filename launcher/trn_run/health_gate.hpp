#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "install_layout.hpp"
#include "node_facts.hpp"
#include "run_nodes.hpp"
#include "run_plan.hpp"
#include "run_start.hpp"
#include "trn/health/step_verdict.hpp"

namespace trn::launcher {

struct HealthGateResult {
  std::vector<health::UnhealthyNode> unhealthy;  // drained (when scontrol let us) and left out
  nlohmann::json report;                         // every node's report, for results.json
};

// Before the compile phase: trn-health --step on every node in one srun (one task per node),
// judged by health::judge_step_reports; each unhealthy node is drained with its reason (a warning
// when scontrol refuses: only operators may drain, and trn-health --slurm will).
// `srun_selection`: srun options that keep the step on `nodes` (srun_node_selection).
HealthGateResult run_health_gate(const std::filesystem::path& trn_health,
                                 const std::vector<NodeFacts>& nodes, const std::string& fsroot,
                                 const std::vector<std::string>& srun_selection = {});

// Stage 5, in a Slurm job: the gate on the job's nodes before anything compiles. No job starts
// on a sick node: it is drained and left out, a healthy spare takes its place or the plan goes
// on with fewer nodes when it allows (`run` replanned, phases["health"] reported); else the job
// is requeued, or fails, and its exit code is returned.
std::optional<int> gate_job_health(const RunStart& start, const RunNodes& seen,
                                   const plan::Profile& profile, const InstallLayout& layout,
                                   RunPlan& run, nlohmann::json& phases);

}  // namespace trn::launcher
