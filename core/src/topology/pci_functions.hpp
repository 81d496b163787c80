#pragma once

// The PCI functions of one kind found under <root>/sys/bus/pci/devices (internal).

#include <filesystem>
#include <vector>

#include "trn/common/id_list.hpp"
#include "trn/topology/pci_address.hpp"

namespace trn::topology {

struct PciFunction {
  PciAddress address;
  unsigned device_id = 0;
  int numa_node = -1;
  IdList local_cpus;
};

// Amazon (0x1d0f) functions whose device id is a Neuron device id, ordered by address.
std::vector<PciFunction> find_neuron_pci_functions(const std::filesystem::path& root);

// numa_node and local_cpulist of the function whose sysfs directory is `dir`.
void read_pci_locality(const std::filesystem::path& dir, PciFunction& function);

}  // namespace trn::topology
