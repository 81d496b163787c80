#pragma once

// What the step may use on this node (internal): CPUs, Neuron devices and the logical core
// config, each checked against the topology.

#include <string>
#include <vector>

#include "trn/placement/placement.hpp"

namespace trn::placement {

// Node CPUs, restricted to the allowed cores' threads and to the allowed CPUs.
IdList step_cpus(const topology::NodeTopology& topology, const PlacementRequest& request);

// Granted devices in index order; all devices when the request does not restrict them.
std::vector<const topology::NeuronDevice*> step_devices(const topology::NodeTopology& topology,
                                                        const PlacementRequest& request);

// --neuron-lnc, else NEURON_LOGICAL_NC_CONFIG, else what neuron-ls reported, else 2 on
// Trainium2 and Trainium3 (the runtime's default) and 1 elsewhere.
unsigned step_lnc(const topology::NodeTopology& topology, const PlacementRequest& request,
                  std::vector<std::string>& notes);

}  // namespace trn::placement
