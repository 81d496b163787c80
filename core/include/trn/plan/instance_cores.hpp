#pragma once

#include <cstdint>
#include <string>

namespace trn::plan {

// The logical NeuronCores per node a plan assumes for nodes of `instance_type` (0: no Neuron
// devices, CPU workers), from what core documents about the type (topology/instance_maps.hpp;
// trn2 with logical NeuronCore config `trn2_lnc`, 2 unless NEURON_LOGICAL_NC_CONFIG says 1).
// `source` names where the type came from ("--instance-type", "the profile's instance_type",
// ...) for the errors: a name that is not FAMILY.SIZE, and a Trainium or Inferentia type whose
// NeuronCores core does not know (a typo such as trn1.23xlarge), are errors listing the known
// types. Any other type (c5.4xlarge) has no Neuron devices.
std::int64_t planned_neuron_cores(const std::string& instance_type, const std::string& source,
                                  unsigned trn2_lnc = 2);

}  // namespace trn::plan
