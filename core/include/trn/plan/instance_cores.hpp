#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace trn::plan {

// A logical NeuronCore config (LNC) asked for, as written, and where: for the errors.
struct LncRequest {
  std::string value;   // "2"
  std::string source;  // "NEURON_LOGICAL_NC_CONFIG in the profile's env"
};

// The LNC the training step's workers get: the profile's env wins over trn-run's own
// environment, as it does in the step's environment; nullopt when neither sets
// NEURON_LOGICAL_NC_CONFIG (the instance type's default applies).
std::optional<LncRequest> requested_lnc(const std::map<std::string, std::string>& profile_env,
                                        const std::optional<std::string>& environment);

// The logical NeuronCores per node a plan assumes for nodes of `instance_type` (0: no Neuron
// devices, CPU workers), from the type's published facts (topology/instance_facts.hpp) at `lnc`,
// else at the type's default config. `source` names where the type came from
// ("--instance-type", "the profile's instance_type", ...) for the errors, each one line naming
// the input and the fix: a name that is not FAMILY.SIZE; a Trainium or Inferentia type trn-slurm
// has no facts for (a typo such as trn1.23xlarge), listing the known types; an `lnc` that is not
// a whole number, or that the type does not offer (2 on trn1, which has no such config; 4
// anywhere). Any other type (c5.4xlarge) has no Neuron devices, whatever `lnc` says.
std::int64_t planned_neuron_cores(const std::string& instance_type, const std::string& source,
                                  const std::optional<LncRequest>& lnc = std::nullopt);

}  // namespace trn::plan
