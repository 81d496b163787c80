#include "task_setup.hpp"

#include <iostream>

#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/node_name.hpp"
#include "trn/common/resolve_host.hpp"
#include "trn/placement/placement.hpp"
#include "trn/taskenv/task_environment.hpp"
#include "trn/topology/node_topology_source.hpp"

namespace trn::launcher {

std::vector<TaskSetup> task_setups(const NodeStep& node_step,
                                   const std::vector<taskenv::TaskIds>& tasks,
                                   const std::string& tool) {
  const auto& facts = node_step.facts;
  // As spank_trn reads the node: its cache when valid, else discovery (neuron-ls when present).
  topology::NodeTopologySource source;
  source.fsroot = expand_node_name(node_step.fsroot, facts.node_name);
  if (node_step.topology_cache)
    source.cache_file = topology::topology_cache_file(*node_step.topology_cache, source);
  const auto topology = topology::load_node_topology(source).topology;
  placement::PlacementRequest request;
  request.local_tasks = facts.local_task_count;
  request.lnc_env = env_value(trn::env::kNeuronLogicalNcConfig);
  // GPU GRES on a node without Neuron devices are someone else's GPUs (a CUDA node).
  if (!topology.devices.empty()) request.allowed_devices = node_step.devices;
  const auto placement = placement::place_step(topology, request);
  auto env_options = node_step.env_options;
  if (node_step.fsroot != "/") env_options.fsroot = node_step.fsroot;
  env_options.launch =
      taskenv::resolve_neuron_launch(taskenv::NeuronLaunch::kAuto, node_step.command);
  auto step = taskenv::prepare_step_environment(topology, placement, facts, env_options);
  // As spank_trn: the rendezvous is an address, resolved once; only NEURON_RT_ROOT_COMM_ID
  // needs one, and a user's MASTER_ADDR replaces the host.
  std::string why;
  if (const auto address = resolve_ipv4(facts.first_host, &why)) {
    step.rendezvous_host = *address;
  } else if (!step.root_comm_port.empty() && !env_value(std::string(env::kMasterAddr))) {
    throw Error("cannot resolve " + facts.first_host + ", the main node, to an IPv4 address (" +
                why + "): NEURON_RT_ROOT_COMM_ID needs it; set MASTER_ADDR to its address");
  }
  const bool bind = node_step.fsroot == "/" && placement.bind_cpus;
  std::vector<TaskSetup> setups;
  for (const auto& ids : tasks) {
    TaskSetup setup;
    setup.rank = ids.global_id;
    const auto task = taskenv::task_environment(step, ids, env_value);
    for (const auto& var : task.set) setup.env[var.name] = var.value;
    if (setups.empty()) {
      for (const auto& warning : task.warnings)
        std::cerr << tool << ": warning: " << warning << '\n';
    }
    if (bind) setup.cpus = placement.tasks.at(ids.local_id).cpus;
    setups.push_back(std::move(setup));
  }
  return setups;
}

}  // namespace trn::launcher
