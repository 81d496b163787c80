#include <algorithm>
#include <thread>

#include "common/slurm_hostnames.hpp"
#include "common/slurm_step_env.hpp"
#include "modes.hpp"
#include "trn/common/deadline.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/health/collectives.hpp"
#include "trn/health/reach.hpp"
#include "trn/taskenv/rendezvous_ports.hpp"
#include "trn/topology/instance_maps.hpp"

namespace trn::health_tool {
namespace {

using namespace std::chrono_literals;

constexpr auto kLeastReachDeadline = 100ms;  // as --reach-deadline-ms allows

const char* const kStepUsage = "srun --ntasks-per-node=1 trn-health --step";

std::string required_env(const char* name) {
  return launcher::required_step_variable(name, "--step", kStepUsage);
}

std::uint32_t env_number(const char* name) {
  return launcher::step_number(name, "--step", kStepUsage);
}

// The step's nodes in node-id order, as Slurm expands its own hostlist.
std::vector<std::string> step_nodes(const std::string& hostlist, SteadyClock::time_point deadline) {
  return launcher::slurm_hostnames(
      hostlist, std::min<std::chrono::milliseconds>(std::chrono::seconds(10),
                                                    std::max(time_left(deadline), 1ms)));
}

// nccom-test over the node's NeuronCores, with what is left of the budget; not on a node whose
// devices already failed (that is its verdict, and the run would only time out).
health::CheckResult collectives(const Options& options, const health::NodeHealth& health) {
  for (const auto& check : health.checks) {
    if (check.check == "neuron-devices" && check.status == health::CheckStatus::kFailed) {
      return {"collectives", health::CheckStatus::kSkipped, "not run: neuron-devices failed", 0};
    }
  }
  const auto expected = health::expected_for(options.checks.fsroot);
  // nccom-test's documented default logical NeuronCore config on Trainium2 is 2.
  const auto lnc =
      env_value(env::kNeuronLogicalNcConfig) == std::optional<std::string>("1") ? 1u : 2u;
  health::CollectivesOptions collectives;
  collectives.nccom_test = options.nccom_test;
  collectives.min_busbw = options.min_busbw;
  collectives.deadline = options.checks.deadline;
  if (expected.documented && expected.devices > 0) {
    collectives.ranks = topology::documented_neuron_cores(expected.instance_type, lnc).value_or(0);
  }
  return health::check_collectives(collectives);
}

}  // namespace

health::NodeCheckRun check_node_in_step(const Options& options) {
  const auto nodes = step_nodes(required_env("SLURM_STEP_NODELIST"), options.checks.deadline);
  const auto tasks = env_number("SLURM_STEP_NUM_TASKS");
  if (tasks != nodes.size()) {
    throw Error("--step needs one task per node (" + std::to_string(tasks) + " tasks on " +
                std::to_string(nodes.size()) +
                " nodes): srun --ntasks-per-node=1 trn-health --step");
  }
  health::ReachOptions reach;
  for (const auto& node : nodes) reach.peers.push_back({node, node});
  reach.self = env_number("SLURM_NODEID");
  if (reach.self >= nodes.size()) throw Error("SLURM_NODEID is beyond the step's node list");
  reach.port = taskenv::rendezvous_ports(env_number("SLURM_JOB_ID"), env_number("SLURM_STEP_ID"))
                   .master_port;
  reach.deadline = std::min(options.reach_deadline, time_left(options.checks.deadline));
  // Reach runs beside the node's own checks, from the step's start on every node: a node whose
  // local checks are slow (neuron-ls) still listens in time, and is not taken for unreachable.
  health::ReachOutcome outcome;
  std::thread reacher;
  if (reach.deadline < kLeastReachDeadline) {
    // No time left to try: that is not a peer's fault (every node would blame every other).
    outcome.result = {"reach", health::CheckStatus::kWarning,
                      "not run: the node check's 10 s budget is spent", 0};
  } else {
    reacher = std::thread([&] { outcome = health::check_reach(reach); });
  }
  auto run = health::check_node(options.checks, options.node);
  if (reacher.joinable()) reacher.join();
  run.health.checks.push_back(std::move(outcome.result));
  // Which node is at fault is judged across every node's report (trn-run, unreachable_nodes).
  run.health.unreached = std::move(outcome.unreached);
  run.health.checks.push_back(collectives(options, run.health));
  return run;
}

}  // namespace trn::health_tool
