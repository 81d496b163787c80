#pragma once

#include <filesystem>
#include <optional>

#include "trn/topology/neuron_ls.hpp"
#include "trn/topology/node_topology.hpp"

namespace trn::topology {

struct DiscoveryOptions {
  // Every file is read below this root ("/" on a node; a fixture tree in tests).
  std::filesystem::path fsroot = "/";
  // A recorded or captured `neuron-ls -j`: the authoritative Neuron index -> PCI map. Without
  // it, the documented map for the DMI product name is used.
  std::optional<NeuronLsOutput> neuron_ls;
};

// Reads the node: Neuron devices and their PCI functions (map checked against the functions
// present), EFA devices, CPUs/cores/NUMA nodes (hwloc), instance type, kernel release, boot id.
// Throws trn::Error with a message naming the file or input at fault and the fix.
// Run it privileged: core_count is readable by root only (see NeuronDevice::core_count_source
// for what happens otherwise). Costly (hundreds of files): cache it, see topology_cache.hpp.
NodeTopology discover(const DiscoveryOptions& options);

}  // namespace trn::topology
