#include "health_gate.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "common/node_drain.hpp"
#include "job_outcome.hpp"
#include "step_setup.hpp"
#include "trn/common/error.hpp"
#include "trn/common/process.hpp"
#include "trn/health/step_reports.hpp"
#include "trn/run/spare_swap.hpp"

namespace trn::launcher {

HealthGateResult run_health_gate(const std::filesystem::path& trn_health,
                                 const std::vector<NodeFacts>& nodes, const std::string& fsroot,
                                 const std::vector<std::string>& srun_selection) {
  const auto count = std::to_string(nodes.size());
  // The check exits 1 on an unhealthy node: the reports say which; only the output counts.
  ProcessOptions options;
  options.stdin_dev_null = true;
  // After a failure a node may be gone and the step never start: the reports that came are used.
  options.timeout = std::chrono::seconds(60);
  // --label: a report that cannot be read still names its node (task i runs on nodes[i]).
  std::vector<std::string> argv = {"srun",
                                   "--label",
                                   "--nodes=" + count,
                                   "--ntasks=" + count,
                                   "--ntasks-per-node=1",
                                   "--kill-on-bad-exit=0"};
  argv.insert(argv.end(), srun_selection.begin(), srun_selection.end());
  argv.insert(argv.end(), {trn_health.string(), "--step", "--json", "--fsroot", fsroot});
  const auto step = capture_process(argv, options);
  std::vector<std::string> names;
  names.reserve(nodes.size());
  for (const auto& node : nodes) names.push_back(node.node);
  const auto step_reports = health::read_step_reports(step.output, names);
  const auto& reports = step_reports.reports;
  const auto verdict = health::judge_step_reports(names, reports, step_reports.unreadable);
  HealthGateResult result{verdict.unhealthy, nlohmann::json::array()};
  for (const auto& report : reports) result.report.push_back(health::to_json(report));
  for (const auto& warning : health::grouped_warnings(verdict.warnings)) {
    std::cerr << "trn-run: health warning: " << warning << '\n';
  }
  for (const auto& sick : result.unhealthy) {
    std::string message;
    const bool drained = drain_node(sick.node, sick.reason, message);
    std::cerr << "trn-run: " << sick.node << " is unhealthy (" << sick.reason << "); "
              << (drained ? "drained" : message) << '\n';
  }
  return result;
}

std::optional<int> gate_job_health(const RunStart& start, const RunNodes& seen,
                                   const plan::Profile& profile, const InstallLayout& layout,
                                   RunPlan& run, nlohmann::json& phases) {
  const auto health_started = std::chrono::steady_clock::now();
  const auto gate = run_health_gate(layout.bin_dir / "trn-health", seen.nodes, seen.fsroot);
  phases["health"] = {{"seconds", seconds_since(health_started)}, {"nodes", gate.report}};
  if (gate.unhealthy.empty()) return std::nullopt;
  const auto& allocation = *start.allocation;
  std::vector<std::string> excluded;
  for (const auto& sick : gate.unhealthy) excluded.push_back(sick.node);
  phases["health"]["excluded"] = excluded;
  run::FailureDiagnosis diagnosis;
  diagnosis.kind = run::FailureKind::kNodeFailure;
  diagnosis.summary =
      std::to_string(excluded.size()) + " unhealthy node(s): " + gate.unhealthy.front().reason;
  // A healthy spare takes an unhealthy node's place; without one the job goes on with
  // fewer nodes when the plan allows.
  const auto healthy = run::select_training_nodes(run.job_order, excluded, run.spares);
  if (healthy.nodes.empty()) return requeue_or_fail(run.plan, allocation, diagnosis);
  std::vector<plan::NodeCores> cores;
  for (const auto& node : seen.nodes) {
    if (std::find(healthy.nodes.begin(), healthy.nodes.end(), node.node) != healthy.nodes.end())
      cores.push_back({node.node, node.neuron_cores});
  }
  auto reduced = run.request;
  reduced.cluster = plan::cluster_shape_of(cores, allocation.job_id);
  reduced.cluster.instance_type = run.request.cluster.instance_type;
  try {
    auto replanned = plan::make_plan(profile, reduced);
    replanned.excluded_nodes = excluded;
    replanned.spare_nodes = healthy.spares;
    run.plan = std::move(replanned);
  } catch (const Error& error) {
    std::cerr << "trn-run: cannot go on without the unhealthy node(s): " << error.what() << '\n';
    return requeue_or_fail(run.plan, allocation, diagnosis);
  }
  std::cout << "trn-run: going on with the " << run.plan.nodes << " healthy node(s)"
            << (run.spares > 0
                    ? ", " + std::to_string(run.plan.spare_nodes.size()) + " spare(s) left"
                    : std::string())
            << '\n';
  return std::nullopt;
}

}  // namespace trn::launcher
