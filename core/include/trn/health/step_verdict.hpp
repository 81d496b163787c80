#pragma once

#include <string>
#include <vector>

#include "trn/health/check_result.hpp"

namespace trn::health {

struct UnhealthyNode {
  std::string node;
  std::string reason;  // drain_reason(): "trn-health: <check>: <evidence>"
};

struct NodeWarning {
  std::string node;
  std::string text;  // "<check>: <evidence>", or why there is no report
};

struct StepVerdict {
  std::vector<UnhealthyNode> unhealthy;  // in the order of `nodes`, reach verdicts last
  std::vector<NodeWarning> warnings;     // checks that could not run, nodes without a report
};

// Which of a step's nodes are unhealthy, from every node's `trn-health --step` report: a failed
// node-local check makes its own node unhealthy; a failed reach check names only the node most
// others could not reach (unreachable_nodes). A node without a report is a warning, never a
// reason to drain (the check could not run there); a node in `unreadable` (its report could not
// be read) is warned about with that text instead.
StepVerdict judge_step_reports(const std::vector<std::string>& nodes,
                               const std::vector<NodeHealth>& reports,
                               const std::vector<NodeWarning>& unreadable = {});

// One line per distinct warning, naming its nodes ("n1, n2 and 14 more: kernel-log: ..."):
// 16 nodes that cannot read the kernel log as the job's user say so once.
std::vector<std::string> grouped_warnings(const std::vector<NodeWarning>& warnings);

}  // namespace trn::health
