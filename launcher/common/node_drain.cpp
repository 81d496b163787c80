#include "common/node_drain.hpp"

#include <chrono>

#include "trn/common/process.hpp"

namespace trn::launcher {
namespace {

bool run_scontrol(const std::vector<std::string>& argv, std::string& output) {
  ProcessOptions options;
  options.stderr_to = StderrTo::kOutput;
  options.stdin_dev_null = true;
  options.timeout = std::chrono::seconds(10);  // a HealthCheckProgram has 60 s in all
  try {
    const auto result = capture_process(argv, options);
    output = result.output;
    while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
    if (result.timed_out) output = "scontrol did not answer within 10 s";
    return !result.timed_out && result.status == 0;
  } catch (const std::exception& error) {
    output = error.what();
    return false;
  }
}

std::string field_value(const std::string& line, const std::string& key) {
  const auto at = line.find(" " + key + "=");
  if (at == std::string::npos) return {};
  const auto value = at + key.size() + 2;
  return line.substr(value, line.find(' ', value) - value);
}

}  // namespace

SlurmNodeState parse_node_state(const std::string& line) {
  SlurmNodeState state;
  state.state = field_value(line, "State");
  // Reason holds spaces and is followed by " [user@time]" (and, in some versions, more fields).
  if (const auto at = line.find(" Reason="); at != std::string::npos) {
    auto reason = line.substr(at + 8);
    if (const auto stamp = reason.find(" ["); stamp != std::string::npos) reason.resize(stamp);
    state.reason = reason;
  }
  return state;
}

std::optional<SlurmNodeState> read_node_state(const std::string& node, std::string& message) {
  std::string output;
  if (!run_scontrol({"scontrol", "show", "node", "-o", node}, output)) {
    message = "scontrol show node " + node + ": " + output;
    return std::nullopt;
  }
  return parse_node_state(output);
}

bool drain_node(const std::string& node, const std::string& reason, std::string& message) {
  std::string output;
  if (run_scontrol({"scontrol", "update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason},
                   output)) {
    return true;
  }
  message = "scontrol could not drain " + node + " (" + output +
            "): only root, SlurmUser and Slurm operators may; trn-health --slurm as the "
            "HealthCheckProgram drains it";
  return false;
}

bool resume_node(const std::string& node, std::string& message) {
  std::string output;
  if (run_scontrol({"scontrol", "update", "NodeName=" + node, "State=RESUME"}, output)) return true;
  message = "scontrol could not resume " + node + " (" + output + ")";
  return false;
}

}  // namespace trn::launcher
