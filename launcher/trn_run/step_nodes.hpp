#pragma once

#include <string>
#include <vector>

#include "trn/plan/plan.hpp"

namespace trn::launcher {

// srun's option that keeps a step off the nodes left out (by the health gate or a recovery) and
// off the spares kept idle (docs/recovery.md#spares); none when the plan uses every node.
inline std::vector<std::string> srun_node_selection(const plan::Plan& plan) {
  std::string list;
  for (const auto* nodes : {&plan.excluded_nodes, &plan.spare_nodes}) {
    for (const auto& node : *nodes) list += (list.empty() ? "" : ",") + node;
  }
  if (list.empty()) return {};
  return {"--exclude=" + list};
}

}  // namespace trn::launcher
