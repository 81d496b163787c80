#include "trn/run/slurm_node_state.hpp"

namespace trn::run {

std::set<std::string> unreachable_by_slurm(std::string_view sinfo_output) {
  std::set<std::string> unreachable;
  while (!sinfo_output.empty()) {
    const auto end = sinfo_output.find('\n');
    auto line = sinfo_output.substr(0, end);
    sinfo_output.remove_prefix(end == std::string_view::npos ? sinfo_output.size() : end + 1);
    const auto space = line.find(' ');
    if (space == 0 || space == std::string_view::npos) continue;
    const auto node = line.substr(0, space);
    auto state = line.substr(space + 1);
    if (state.empty() || state.find(' ') != std::string_view::npos) continue;
    // sinfo(1): '*' after the state means the node is not responding; "down", "fail" and
    // "failing" carry a state of their own, with or without "drain" around them.
    const bool not_responding = state.back() == '*';
    if (not_responding) state.remove_suffix(1);
    if (not_responding || state.starts_with("down") || state.starts_with("fail"))
      unreachable.emplace(node);
  }
  return unreachable;
}

}  // namespace trn::run
