#pragma once

#include <string>
#include <vector>

#include "trn/plan/plan.hpp"

namespace trn::launcher {

// srun's option that keeps a step off the nodes the health gate left out; none when it kept all.
inline std::vector<std::string> srun_node_selection(const plan::Plan& plan) {
  if (plan.excluded_nodes.empty()) return {};
  std::string list;
  for (const auto& node : plan.excluded_nodes) list += (list.empty() ? "" : ",") + node;
  return {"--exclude=" + list};
}

}  // namespace trn::launcher
