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

// The output of `srun --label --ntasks-per-node=1 trn-health --step --json`: one labelled JSON
// line per task, and task i ran on nodes[i] (one task per node, Slurm's node order). Other
// lines (srun's own messages) are ignored; a node's line that does not parse names that node.
StepReports read_step_reports(std::string_view labelled_output,
                              const std::vector<std::string>& nodes);

}  // namespace trn::health
