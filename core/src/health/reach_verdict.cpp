#include <algorithm>

#include "trn/health/reach.hpp"

namespace trn::health {

std::vector<std::string> unreachable_nodes(
    const std::vector<std::string>& all,
    const std::map<std::string, std::vector<std::string>>& unreached_by_node) {
  std::vector<std::string> blamed;
  for (const auto& node : all) {
    std::size_t reporters = 0;
    std::size_t failed = 0;
    for (const auto& [reporter, unreached] : unreached_by_node) {
      if (reporter == node) continue;
      ++reporters;
      if (std::find(unreached.begin(), unreached.end(), node) != unreached.end()) ++failed;
    }
    if (failed >= 2 && 2 * failed > reporters) blamed.push_back(node);
  }
  return blamed;
}

}  // namespace trn::health
