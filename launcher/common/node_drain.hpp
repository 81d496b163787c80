#pragma once

#include <optional>
#include <string>

namespace trn::launcher {

// A node's state and reason as `scontrol show node -o NAME` prints them.
struct SlurmNodeState {
  std::string state;   // e.g. "IDLE+DRAIN", "MIXED"
  std::string reason;  // "" when none; without the "[user@time]" Slurm appends
  bool drained() const { return state.find("DRAIN") != std::string::npos; }
};

// nullopt when scontrol fails (the message says why).
std::optional<SlurmNodeState> read_node_state(const std::string& node, std::string& message);
SlurmNodeState parse_node_state(const std::string& scontrol_line);

// `scontrol update NodeName=<node> State=DRAIN Reason=<reason>`; false with `message` when
// scontrol refused (only root, SlurmUser and operators may drain) or did not answer in 10 s.
bool drain_node(const std::string& node, const std::string& reason, std::string& message);
// State=RESUME: only for nodes the caller drained itself (its reason prefix).
bool resume_node(const std::string& node, std::string& message);

}  // namespace trn::launcher
