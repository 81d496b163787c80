// HealthCheckProgram mode, NHC's discipline (docs/health.md#slurm): drain with a fixed reason
// prefix, resume only nodes whose reason carries it, leave other reasons alone, stay far below
// Slurm's 60 s limit (every scontrol call has 10 s).
#include <iostream>

#include "common/exit_codes.hpp"
#include "common/node_drain.hpp"
#include "modes.hpp"

namespace trn::health_tool {

int act_as_health_check_program(const Options& options, const health::NodeHealth& health) {
  std::string message;
  const auto state = launcher::read_node_state(options.node, message);
  if (!state) {
    std::cerr << "trn-health: " << message << "; the node is left as it is\n";
    return health.healthy() ? launcher::kSuccess : launcher::kUnhealthy;
  }
  const bool ours = state->reason.rfind(std::string(health::kDrainPrefix), 0) == 0;
  if (const auto* failure = health.first_failure()) {
    const auto reason = health::drain_reason(*failure);
    if (state->drained() && !ours) {
      std::cout << "trn-health: " << options.node << " unhealthy (" << reason
                << "); already drained by someone else (" << state->reason << "), left so\n";
    } else if (state->drained() && state->reason == reason) {
      std::cout << "trn-health: " << options.node << " still drained: " << reason << '\n';
    } else if (launcher::drain_node(options.node, reason, message)) {
      std::cout << "trn-health: drained " << options.node << ": " << reason << '\n';
    } else {
      std::cerr << "trn-health: " << message << '\n';
    }
    return launcher::kUnhealthy;
  }
  if (state->drained() && ours) {
    if (launcher::resume_node(options.node, message)) {
      std::cout << "trn-health: resumed " << options.node
                << " (healthy again; it was drained: " << state->reason << ")\n";
    } else {
      std::cerr << "trn-health: " << message << '\n';
    }
  }
  return launcher::kSuccess;
}

}  // namespace trn::health_tool
