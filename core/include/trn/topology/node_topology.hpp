#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trn/common/id_list.hpp"
#include "trn/topology/pci_address.hpp"

namespace trn::topology {

// One Neuron device, /sys/devices/virtual/neuron_device/neuron<index>, joined with its PCI
// function (found through a documented or recorded map: sysfs has no link between the two).
struct NeuronDevice {
  unsigned index = 0;
  unsigned physical_cores = 0;    // core_count: NeuronCores before any logical grouping (trn2: 8)
  std::string core_count_source;  // "sysfs", or why another source was used
  std::vector<unsigned> connected_devices;
  std::string arch_type;    // info/architecture/arch_type, e.g. NDv2
  std::string family;       // info/architecture/instance_type, e.g. Trn1
  std::string device_name;  // info/architecture/device_name, e.g. Trainium1
  PciAddress pci;
  unsigned pci_device_id = 0;  // e.g. 0x7164
  int numa_node = -1;          // -1: the platform reports no NUMA locality
  IdList local_cpus;
  std::vector<std::string> efa_devices;  // names of the EFA devices that serve this device
};

// An EFA device, /sys/class/infiniband/<name> whose PCI function is 0x1d0f:0xefaN.
struct EfaDevice {
  std::string name;  // e.g. rdmap16s26
  PciAddress pci;
  unsigned pci_device_id = 0;
  int numa_node = -1;
  IdList local_cpus;
};

struct NumaNode {
  unsigned os_index = 0;
  IdList cpus;
};

// A physical CPU core: its hardware threads (hyperthread siblings), as hwloc reports them. The
// position in NodeTopology::cores is hwloc's logical core index, which is Slurm's core index
// (S_STEP_ALLOC_CORES).
struct CpuCore {
  IdList cpus;
  int numa_node = -1;
};

// The boot id below a filesystem root. Only the per-boot topology cache needs it: a root
// without one is discovered as usual and never cached.
inline constexpr const char* kBootIdFile = "proc/sys/kernel/random/boot_id";

// Everything trn-slurm needs to know about a node. Discovered once (privileged: core_count is
// root-only), cached as JSON, then used per step without touching devices again.
struct NodeTopology {
  std::string fsroot;          // the filesystem root it was discovered from
  std::string boot_id;         // kBootIdFile: the cache is valid for one boot; "" when absent
  std::string instance_type;   // DMI product name, e.g. trn1.32xlarge ("" when unknown)
  std::string kernel_release;  // proc/sys/kernel/osrelease
  std::string pci_map_source;  // where the Neuron index -> PCI map came from
  std::optional<unsigned> neuron_ls_lnc;  // logical_neuroncore_config reported by neuron-ls
  std::vector<NeuronDevice> devices;      // ordered by index
  std::vector<EfaDevice> efa_devices;     // ordered by PCI address
  std::vector<NumaNode> numa_nodes;       // ordered by os_index
  std::vector<CpuCore> cores;             // ordered by hwloc logical index
  IdList cpus;                            // all online CPUs

  const NeuronDevice* device(unsigned index) const;
  const NumaNode* numa_node(unsigned os_index) const;
  // Trainium2 or Trainium3 devices, whose logical NeuronCore config (LNC) can be 1 or 2
  // (docs/hardware.md#instances).
  bool offers_logical_nc_config() const;
};

}  // namespace trn::topology
