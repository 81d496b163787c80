#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "node_facts.hpp"
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

}  // namespace trn::launcher
