#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "trn/placement/placement.hpp"
#include "trn/taskenv/env_options.hpp"
#include "trn/taskenv/rendezvous_ports.hpp"
#include "trn/taskenv/step_facts.hpp"
#include "trn/topology/node_topology.hpp"

namespace trn::taskenv {

struct EnvVar {
  std::string name;
  std::string value;

  friend bool operator==(const EnvVar&, const EnvVar&) = default;
};

// The value of a variable in the task's environment as it stands (what the user set), or none.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Everything that is the same for all tasks of the step on this node: built once per step.
struct StepEnvironment {
  struct Entry {
    EnvVar var;
    bool user_wins = true;  // false for TRN_* (they record trn-slurm's decision)
  };
  std::vector<Entry> common;
  std::vector<std::vector<Entry>> per_task;  // by local task id
  std::string rendezvous_host;               // MASTER_ADDR unless the user set one
  std::string root_comm_port;                // "" when the step uses no NeuronCores here
  bool one_task_per_node = false;            // PET_* (torchrun) besides RANK/WORLD_SIZE
  bool neuron_world = false;                 // per-core launch: NEURON_PJRT_PROCESS_INDEX per task
  std::optional<std::string> compile_cache;
  bool override_user = false;
  RendezvousPorts ports;
  std::vector<std::string> notes;  // decisions worth a verbose log line
};

// Throws trn::Error when the facts do not match the placement, or with EfaMode::kRequired on a
// node without EFA (the message names the node).
StepEnvironment prepare_step_environment(const topology::NodeTopology& topology,
                                         const placement::StepPlacement& placement,
                                         const StepFacts& facts, const EnvOptions& options);

struct TaskEnvironment {
  std::vector<EnvVar> set;            // to export, in this order
  std::vector<std::string> kept;      // variables left as the user set them
  std::vector<std::string> warnings;  // for the user (same for every task: log once)
};

// Cheap: a few dozen string operations. Variables the user already set (per `existing`) are
// kept unless StepEnvironment::override_user; TRN_* are always set.
TaskEnvironment task_environment(const StepEnvironment& step, const TaskIds& task,
                                 const EnvLookup& existing);

}  // namespace trn::taskenv
