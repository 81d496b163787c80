#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "node_facts.hpp"

namespace trn::launcher {

// The compute nodes a plan assumes when no allocation shows them (`trn-run --plan --nodes N`
// on a head node, whose own topology says nothing about the compute nodes).
struct PlannedInstance {
  std::string type;               // e.g. trn1.32xlarge
  std::string source;             // where it came from, for messages: "--instance-type", ...
  std::int64_t neuron_cores = 0;  // logical NeuronCores per node; 0: CPU workers
};

// The instance type, first found: --instance-type, the partition's (the job's, else the default
// one) from its nodes' ParallelCluster features (sinfo), the profile's instance_type. nullopt
// when none names one. A partition of several instance types is an error asking for
// --instance-type; so is a type whose NeuronCores core does not know, and a logical NeuronCore
// config (NEURON_LOGICAL_NC_CONFIG in `profile_env`, else in trn-run's environment) it does not
// offer.
std::optional<PlannedInstance> planned_instance(
    const std::optional<std::string>& flag, const std::optional<std::string>& partition,
    const std::string& profile_type, const std::map<std::string, std::string>& profile_env);

// `nodes` alike, each of the planned instance type (no node names).
std::vector<NodeFacts> planned_nodes(const PlannedInstance& instance, unsigned count);

// Inside a job the nodes' own facts decide; when an instance type was given (--instance-type or
// the profile's) and the nodes are something else, says so on stderr.
void report_instance_mismatch(const std::optional<std::string>& flag,
                              const std::string& profile_type,
                              const std::map<std::string, std::string>& profile_env,
                              const NodeFacts& node);

}  // namespace trn::launcher
