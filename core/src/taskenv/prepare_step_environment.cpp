#include <string>

#include "trn/common/env_names.hpp"
#include "trn/common/error.hpp"
#include "trn/taskenv/neuron_world.hpp"
#include "trn/taskenv/task_environment.hpp"
#include "trn/topology/kernel_release.hpp"

namespace trn::taskenv {
namespace {

using Entry = StepEnvironment::Entry;

Entry user_wins(std::string_view name, std::string value) {
  return {{std::string(name), std::move(value)}, true};
}

Entry decision(std::string_view name, std::string value) {
  return {{std::string(name), std::move(value)}, false};
}

void check_facts(const placement::StepPlacement& placement, const StepFacts& facts) {
  const auto fail = [](const std::string& why) {
    throw Error("inconsistent step facts (" + why + "): pass the step's own Slurm values");
  };
  if (facts.nnodes == 0 || facts.node_id >= facts.nnodes) {
    fail("node " + std::to_string(facts.node_id) + " of " + std::to_string(facts.nnodes));
  }
  if (facts.local_task_count != placement.tasks.size()) {
    fail(std::to_string(facts.local_task_count) + " local tasks but a placement for " +
         std::to_string(placement.tasks.size()));
  }
  if (facts.total_task_count < facts.local_task_count) {
    fail(std::to_string(facts.total_task_count) + " tasks in total but " +
         std::to_string(facts.local_task_count) + " on this node");
  }
  if (facts.first_host.empty()) {
    throw Error("the step's first node is unknown: pass the first host of SLURM_STEP_NODELIST");
  }
}

std::string efa_names(const topology::NodeTopology& topology) {
  std::string out;
  for (const auto& efa : topology.efa_devices) out += (out.empty() ? "" : ",") + efa.name;
  return out;
}

}  // namespace

StepEnvironment prepare_step_environment(const topology::NodeTopology& topology,
                                         const placement::StepPlacement& placement,
                                         const StepFacts& facts, const EnvOptions& options) {
  check_facts(placement, facts);
  StepEnvironment step;
  step.override_user = options.override_user;
  step.compile_cache = options.compile_cache;
  step.rendezvous_host = facts.first_host;
  step.ports = rendezvous_ports(facts.job_id, facts.step_id);
  step.one_task_per_node = facts.total_task_count == facts.nnodes;
  const bool neuron = placement.has_neuron_cores();
  if (neuron) step.root_comm_port = std::to_string(step.ports.root_comm_port);

  const bool has_efa = !topology.efa_devices.empty();
  if (options.efa == EfaMode::kRequired && !has_efa) {
    throw Error("EFA is required (efa=required / --neuron-efa=required) but node " +
                facts.node_name +
                " has no EFA device: attach EFA interfaces to the instance "
                "or run with --neuron-efa=auto");
  }
  auto& common = step.common;
  if (options.efa != EfaMode::kOff && has_efa) {
    common.push_back(user_wins(env::kFiProvider, "efa"));
    common.push_back(user_wins(env::kFiEfaUseDeviceRdma, "1"));
    const auto kernel = topology::parse_kernel_release(topology.kernel_release, "kernel release");
    if (topology::efa_needs_fork_safe(kernel)) {
      common.push_back(user_wins(env::kFiEfaForkSafe, "1"));
      step.notes.push_back("kernel " + topology.kernel_release +
                           " is older than 5.15: FI_EFA_FORK_SAFE=1");
    }
  } else if (has_efa) {
    step.notes.push_back("EFA devices " + efa_names(topology) + " left unused (efa=off)");
  }
  if (neuron && topology.offers_logical_nc_config()) {
    common.push_back(user_wins(env::kNeuronLogicalNcConfig, std::to_string(placement.lnc)));
  }
  common.push_back(user_wins(env::kMasterAddr, facts.first_host));
  common.push_back(user_wins(env::kMasterPort, std::to_string(step.ports.master_port)));
  // Every task is a torch.distributed worker as it stands. With one task per node it may
  // instead be torchrun, which reads PET_* and sets RANK/WORLD_SIZE for the workers it starts.
  common.push_back(user_wins(env::kWorldSize, std::to_string(facts.total_task_count)));
  common.push_back(user_wins(env::kLocalWorldSize, std::to_string(facts.local_task_count)));
  common.push_back(user_wins(env::kNodeRank, std::to_string(facts.node_id)));
  if (step.one_task_per_node) {
    common.push_back(user_wins(env::kPetNnodes, std::to_string(facts.nnodes)));
    common.push_back(user_wins(env::kPetNodeRank, std::to_string(facts.node_id)));
    common.push_back(user_wins(env::kPetMasterPort, std::to_string(step.ports.master_port)));
  }
  if (neuron && options.launch == NeuronLaunch::kPerCore) {
    // torch-neuronx describes the world only for torchrun's workers: here each task is one.
    auto world = per_core_world(placement, facts, options.cores_per_task_fixed).world_variable();
    step.neuron_world = true;
    common.push_back(user_wins(world.name, std::move(world.value)));
    common.push_back(
        user_wins(env::kPjrtLocalProcessCount, std::to_string(facts.local_task_count)));
  }
  if (options.shared_cache) common.push_back(decision(env::kTrnCacheShared, *options.shared_cache));
  if (options.fsroot) common.push_back(decision(env::kTrnFsroot, *options.fsroot));
  common.push_back(decision(env::kTrnInstanceType,
                            topology.instance_type.empty() ? "unknown" : topology.instance_type));

  step.per_task.resize(placement.tasks.size());
  for (std::size_t i = 0; i < placement.tasks.size(); ++i) {
    const auto& task = placement.tasks[i];
    auto& entries = step.per_task[i];
    if (neuron) entries.push_back(user_wins(env::kNeuronRtVisibleCores, task.visible_cores));
    if (step.one_task_per_node) {
      const auto workers = task.neuron_cores.empty() ? 1 : task.neuron_cores.size();
      entries.push_back(user_wins(env::kPetNprocPerNode, std::to_string(workers)));
    }
    entries.push_back(decision(env::kTrnCpus, task.cpu_list));
    std::string efa;
    if (options.efa != EfaMode::kOff) {
      for (const auto& name : task.efa_devices) efa += (efa.empty() ? "" : ",") + name;
    }
    if (!efa.empty()) entries.push_back(decision(env::kTrnEfaDevices, efa));
  }
  return step;
}

}  // namespace trn::taskenv
