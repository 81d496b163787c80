#include "health_gate.hpp"

#include <chrono>
#include <iostream>

#include "common/node_drain.hpp"
#include "trn/common/process.hpp"
#include "trn/health/step_reports.hpp"

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

}  // namespace trn::launcher
