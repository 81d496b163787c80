#pragma once

#include <string_view>
#include <vector>

#include "trn/health/check_result.hpp"
#include "trn/health/step_verdict.hpp"

namespace trn::health {

struct StepReports {
  std::vector<NodeHealth> reports;
  // Nodes whose report could not be read (not JSON, or not trn-health's): they could not be
  // checked, which is a warning and never a reason to drain.
  std::vector<NodeWarning> unreadable;
};

// The standard output of `srun --label --ntasks-per-node=1 trn-health --step --json`: each
// task's JSON report, in labelled pieces (srun cuts lines at 1024 bytes), and task i ran on
// nodes[i] (one task per node, Slurm's node order). A report that does not parse names its node.
StepReports read_step_reports(std::string_view labelled_output,
                              const std::vector<std::string>& nodes);

}  // namespace trn::health
