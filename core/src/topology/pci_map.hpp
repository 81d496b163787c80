#pragma once

// Joins each Neuron device with its PCI function (internal). sysfs has no link between them
// and Neuron indices are not in PCI order, so the map comes from a recorded `neuron-ls -j`, the
// documented map for the instance type, or - with one device and one function - is implied.
// The map is then checked against the Neuron functions actually present.

#include <optional>
#include <string>
#include <vector>

#include "pci_functions.hpp"
#include "trn/topology/neuron_ls.hpp"
#include "trn/topology/node_topology.hpp"

namespace trn::topology {

struct PciMapInput {
  std::string instance_type;
  std::string pci_root;  // <root>/sys/bus/pci/devices, named in messages
  const std::vector<NeuronLsDevice>* neuron_ls = nullptr;
  std::string neuron_ls_origin;
};

// Fills pci, pci_device_id, numa_node and local_cpus of every device; returns the map's source.
std::string attach_pci_functions(std::vector<NeuronDevice>& devices,
                                 const std::vector<PciFunction>& functions,
                                 const PciMapInput& input);

}  // namespace trn::topology
