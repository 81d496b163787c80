// trn-health: is this node fit to train? One line per check (or one JSON object), exit 0
// healthy, 1 unhealthy, 2 bad input. The checks live in core/src/health; this file picks the
// mode (node, --step, --slurm, --accept) and reports.
#include <iostream>

#include "common/exit_codes.hpp"
#include "common/version.hpp"
#include "modes.hpp"
#include "trn/common/error.hpp"
#include "trn/health/node_checks.hpp"
#include "trn/topology/node_identity.hpp"
#include "watchdog.hpp"

namespace {

using namespace trn;

int run(const std::vector<std::string>& args) {
  const auto started = SteadyClock::now();
  auto options = health_tool::parse_options(args);
  health_tool::start_watchdog(options.time_limit);
  options.checks.deadline = started + health::kNodeCheckBudget;
  const auto boot_id = topology::read_boot_id(options.checks.fsroot);
  if (options.mode == health_tool::Mode::kAccept && boot_id.empty()) {
    // A baseline is kept for one boot: one without the boot's id would be ignored by every check.
    throw Error("--accept: " + (options.checks.fsroot / "proc/sys/kernel/random/boot_id").string() +
                " cannot be read, so the baseline could not be tied to this boot and no later "
                "check would use it: run trn-health on the node itself, or give the recorded tree "
                "that file");
  }
  if (options.mode != health_tool::Mode::kAccept) {
    options.checks.baseline = health::read_baseline(options.state_dir, boot_id);
  }
  auto run = options.mode == health_tool::Mode::kStep
                 ? health_tool::check_node_in_step(options)
                 : health::check_node(options.checks, options.node);
  if (options.json) {
    std::cout << health::to_json(run.health).dump() << '\n';
  } else {
    std::cout << health::render_text(run.health);
  }
  std::cout << std::flush;
  switch (options.mode) {
    case health_tool::Mode::kAccept:
      health::write_baseline(options.state_dir, run.observed);
      std::cout << "trn-health: recorded " << (options.state_dir / health::kBaselineFile).string()
                << " as the clean baseline of " << options.node << '\n';
      return launcher::kSuccess;
    case health_tool::Mode::kSlurm:
      if (run.health.healthy()) health::write_baseline(options.state_dir, run.observed);
      return health_tool::act_as_health_check_program(options, run.health);
    case health_tool::Mode::kNode:
    case health_tool::Mode::kStep:
      break;
  }
  return run.health.healthy() ? launcher::kSuccess : launcher::kUnhealthy;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (launcher::asks_for_version(args)) {
    launcher::print_version("trn-health");
    return launcher::kSuccess;
  }
  try {
    return run(args);
  } catch (const std::exception& error) {
    std::cerr << "trn-health: " << error.what() << '\n';
    return launcher::kBadInput;
  }
}
