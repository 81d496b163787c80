#include "trn/health/step_verdict.hpp"

#include <algorithm>
#include <map>

#include "trn/health/reach.hpp"

namespace trn::health {

StepVerdict judge_step_reports(const std::vector<std::string>& nodes,
                               const std::vector<NodeHealth>& reports,
                               const std::vector<NodeWarning>& unreadable) {
  StepVerdict verdict;
  std::map<std::string, std::vector<std::string>> unreached;
  std::map<std::string, const NodeHealth*> by_node;
  for (const auto& report : reports) {
    by_node[report.node] = &report;
    unreached[report.node] = report.unreached;
  }
  for (const auto& node : nodes) {
    const auto it = by_node.find(node);
    if (it == by_node.end()) {
      const auto why = std::find_if(unreadable.begin(), unreadable.end(),
                                    [&](const NodeWarning& w) { return w.node == node; });
      verdict.warnings.push_back(
          why != unreadable.end()
              ? *why
              : NodeWarning{node, "no health report (trn-health did not run there)"});
      continue;
    }
    for (const auto& check : it->second->checks) {
      if (check.status == CheckStatus::kWarning) {
        verdict.warnings.push_back({node, check.check + ": " + check.evidence});
      }
    }
    const auto failed = std::find_if(
        it->second->checks.begin(), it->second->checks.end(), [](const CheckResult& check) {
          return check.status == CheckStatus::kFailed && check.check != "reach";
        });
    if (failed != it->second->checks.end())
      verdict.unhealthy.push_back({node, drain_reason(*failed)});
  }
  const auto blamed = unreachable_nodes(nodes, unreached);
  for (const auto& node : blamed) {
    if (std::any_of(verdict.unhealthy.begin(), verdict.unhealthy.end(),
                    [&](const UnhealthyNode& u) { return u.node == node; })) {
      continue;
    }
    std::size_t failed = 0;
    for (const auto& [reporter, peers] : unreached) {
      if (reporter != node && std::find(peers.begin(), peers.end(), node) != peers.end()) ++failed;
    }
    const auto others = unreached.size() - (unreached.count(node) ? 1 : 0);
    const CheckResult reach{"reach", CheckStatus::kFailed,
                            "not reachable from " + std::to_string(failed) + " of " +
                                std::to_string(others) + " other nodes of the step",
                            0};
    verdict.unhealthy.push_back({node, drain_reason(reach)});
  }
  if (blamed.empty()) {
    for (const auto& [node, peers] : unreached) {
      if (!peers.empty()) {
        verdict.warnings.push_back({node, "could not reach " + peers.front() +
                                              ", but no node is unreachable from most others"});
      }
    }
  }
  return verdict;
}

std::vector<std::string> grouped_warnings(const std::vector<NodeWarning>& warnings) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // first-seen order
  for (const auto& warning : warnings) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& group) { return group.first == warning.text; });
    if (it == groups.end()) {
      groups.push_back({warning.text, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(warning.node);
  }
  std::vector<std::string> lines;
  constexpr std::size_t kNamed = 3;
  for (const auto& [text, nodes] : groups) {
    std::string line;
    for (std::size_t i = 0; i < nodes.size() && i < kNamed; ++i) {
      line.append(i ? ", " : "").append(nodes[i]);
    }
    if (nodes.size() > kNamed) {
      line.append(" and ").append(std::to_string(nodes.size() - kNamed)).append(" more");
    }
    line.append(": ").append(text);
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace trn::health
