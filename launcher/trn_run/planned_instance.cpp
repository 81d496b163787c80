#include "planned_instance.hpp"

#include <chrono>
#include <iostream>

#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/process.hpp"
#include "trn/pcluster/node_features.hpp"
#include "trn/plan/instance_cores.hpp"

namespace trn::launcher {
namespace {

// The logical NeuronCore config the training step's workers would get on the node.
std::optional<plan::LncRequest> step_lnc(const std::map<std::string, std::string>& profile_env) {
  return plan::requested_lnc(profile_env, env_value(trn::env::kNeuronLogicalNcConfig));
}

// The partition's instance types from sinfo; empty when Slurm's clients are missing or cannot
// reach a controller (planning on a laptop), which is not an error: the profile may say it.
std::set<std::string> partition_types(const std::optional<std::string>& partition) {
  CapturedProcess sinfo;
  try {
    sinfo = capture_process({"sinfo", "-h", "-o", "%P %f"}, {.stderr_to = StderrTo::kDevNull,
                                                             .stdin_dev_null = true,
                                                             .timeout = std::chrono::seconds(20)});
  } catch (const Error&) {
    return {};
  }
  if (sinfo.status != 0 || sinfo.timed_out) return {};
  return pcluster::partition_instance_types(sinfo.output, partition);
}

PlannedInstance resolved(std::string type, std::string source,
                         const std::map<std::string, std::string>& profile_env) {
  const auto cores = plan::planned_neuron_cores(type, source, step_lnc(profile_env));
  return {std::move(type), std::move(source), cores};
}

}  // namespace

std::optional<PlannedInstance> planned_instance(
    const std::optional<std::string>& flag, const std::optional<std::string>& partition,
    const std::string& profile_type, const std::map<std::string, std::string>& profile_env) {
  if (flag) return resolved(*flag, "--instance-type", profile_env);
  const auto types = partition_types(partition);
  const std::string where = partition ? "partition " + *partition : "the default partition";
  if (types.size() > 1) {
    std::string list;
    for (const auto& type : types) list += (list.empty() ? "" : ", ") + type;
    throw Error(where + " has nodes of " + list +
                ": say which ones to plan for with --instance-type TYPE");
  }
  if (types.size() == 1) return resolved(*types.begin(), where + "'s node features", profile_env);
  if (!profile_type.empty())
    return resolved(profile_type, "the profile's instance_type", profile_env);
  return std::nullopt;
}

std::vector<NodeFacts> planned_nodes(const PlannedInstance& instance, unsigned count) {
  NodeFacts node;
  node.instance_type = instance.type;
  node.neuron_cores = instance.neuron_cores;
  return std::vector<NodeFacts>(count, node);
}

void report_instance_mismatch(const std::optional<std::string>& flag,
                              const std::string& profile_type,
                              const std::map<std::string, std::string>& profile_env,
                              const NodeFacts& node) {
  if (!flag && profile_type.empty()) return;
  const auto assumed = flag ? resolved(*flag, "--instance-type", profile_env)
                            : resolved(profile_type, "the profile's instance_type", profile_env);
  const bool same = node.instance_type.empty() ? node.neuron_cores == assumed.neuron_cores
                                               : node.instance_type == assumed.type;
  if (same) return;
  const auto cores = node.neuron_cores == 0 ? std::string("no Neuron devices")
                                            : std::to_string(node.neuron_cores) + " NeuronCores";
  std::cerr << "trn-run: note: " << assumed.source << " is " << assumed.type
            << ", but the job's nodes are "
            << (node.instance_type.empty() ? std::string("of an unknown type") : node.instance_type)
            << " with " << cores << " each: planning for the job's nodes\n";
}

}  // namespace trn::launcher
