#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace trn::topology {

// What AWS documents per instance type: the Neuron index -> PCI function map (neuron-ls
// tables) and the EFA that serves each device (aws-neuron/connected-device-maps-over-efa-for-
// neuron). Used when no recorded `neuron-ls -j` output is given. See docs/hardware.md#pci-map.
struct DocumentedDevice {
  unsigned index;
  std::string_view pci;  // "10:1c.0", domain 0000
  int numa_node;
  std::string_view efa_pci;  // "" when the instance has no EFA map
};

// The device name and count of the type are its facts' (instance_facts.hpp).
struct InstanceMap {
  std::string_view instance_type;
  std::span<const DocumentedDevice> devices;
};

// nullptr when the instance type has no documented map.
const InstanceMap* documented_instance_map(std::string_view instance_type);

// PCI device ids of Neuron devices (vendor 0x1d0f): Inf1 0x7064-0x7067, Trn1 0x7164,
// Inf2 0x7264, Trn2 0x7364.
bool is_neuron_pci_device(unsigned device_id);
// EFA PCI device ids (vendor 0x1d0f): 0xefa0-0xefa3.
bool is_efa_pci_device(unsigned device_id);
inline constexpr unsigned kAmazonPciVendor = 0x1d0f;

// Physical NeuronCores per device by info/architecture/device_name (the instance facts'), for when
// core_count is unreadable (it is root-only); 0 when the name is unknown.
unsigned documented_cores_per_device(std::string_view device_name);

// The logical NeuronCores a node of this instance type offers, from its published facts
// (instance_facts.hpp): trn1.32xlarge 32; trn2.48xlarge 64 at logical NeuronCore config (LNC) 2,
// its default, and 128 at `lnc` 1. An `lnc` the type does not offer counts as its default.
// nullopt when the type has no published facts. Lets a plan made away from the compute nodes
// (a head node) match them.
std::optional<unsigned> documented_neuron_cores(std::string_view instance_type, unsigned lnc = 2);

}  // namespace trn::topology
