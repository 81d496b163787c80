#include "trn/run/launch_step_facts.hpp"

#include "trn/common/error.hpp"

namespace trn::run {

taskenv::StepFacts launch_step_facts(const LaunchEnvironment& launch, unsigned tasks_per_node,
                                     const std::string& this_node) {
  if (tasks_per_node < 1 || launch.nodes < 1 || launch.node_rank >= launch.nodes) {
    throw Error("internal: " + std::to_string(tasks_per_node) + " task(s) per node on node " +
                std::to_string(launch.node_rank) + " of " + std::to_string(launch.nodes));
  }
  taskenv::StepFacts facts;
  facts.nnodes = launch.nodes;
  facts.node_id = launch.node_rank;
  facts.local_task_count = tasks_per_node;
  facts.total_task_count = launch.nodes * tasks_per_node;
  // The main node hosts the rendezvous; it is this node where the launcher names none.
  facts.first_host = launch.main_host.empty() ? this_node : launch.main_host;
  facts.node_name = this_node;
  return facts;
}

}  // namespace trn::run
