#include "health_gate.hpp"

#include <chrono>
#include <iostream>
#include <sstream>

#include "common/node_drain.hpp"
#include "trn/common/error.hpp"
#include "trn/common/process.hpp"

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
  std::vector<std::string> argv = {"srun", "--nodes=" + count, "--ntasks=" + count,
                                   "--ntasks-per-node=1", "--kill-on-bad-exit=0"};
  argv.insert(argv.end(), srun_selection.begin(), srun_selection.end());
  argv.insert(argv.end(), {trn_health.string(), "--step", "--json", "--fsroot", fsroot});
  const auto step = capture_process(argv, options);
  std::vector<health::NodeHealth> reports;
  std::istringstream lines(step.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.front() != '{') continue;
    try {
      reports.push_back(health::node_health_from_json(nlohmann::json::parse(line)));
    } catch (const nlohmann::json::exception& error) {
      throw Error("unexpected trn-health output '" + line + "': " + error.what());
    }
  }
  std::vector<std::string> names;
  names.reserve(nodes.size());
  for (const auto& node : nodes) names.push_back(node.node);
  const auto verdict = health::judge_step_reports(names, reports);
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
