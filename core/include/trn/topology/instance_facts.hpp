#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace trn::topology {

// What AWS publishes about the Neuron devices of one instance type, for planning away from the
// nodes (a head node plans for its compute nodes): how many devices, their physical NeuronCores,
// which logical NeuronCore configs (LNC) the type offers and its default, each device's memory
// and the EFA devices. Every value and its public source: docs/hardware.md#instances. The PCI and
// NUMA layout, where AWS documents it, is a separate table (instance_maps.hpp): Trainium3's is not
// published.
struct InstanceFacts {
  std::string_view instance_type;
  std::string_view device_name;  // info/architecture/device_name: "Trainium2"
  unsigned devices;
  unsigned physical_cores_per_device;
  // The LNC values the type offers: {1} on devices without the setting (Trainium1, Inferentia2),
  // {1, 2} on Trainium2 and Trainium3.
  std::span<const unsigned> lnc_values;
  unsigned default_lnc;
  unsigned device_memory_gib;  // one device's memory
  // EFA devices of the instance: 0 where it has none (EFA must stay off), nullopt where the count
  // is not published (Trainium3), about which trn-cluster check makes no EFA claim.
  std::optional<unsigned> efa_devices;

  bool offers_lnc(unsigned lnc) const;
  // devices x physical cores / lnc: the logical NeuronCores the node shows at that config.
  unsigned logical_cores(unsigned lnc) const;
  // "1 or 2", "only 1": for messages.
  std::string lnc_values_text() const;
};

// nullptr when trn-slurm knows no published facts for the type.
const InstanceFacts* instance_facts(std::string_view instance_type);
// The facts of the first type whose devices are `device_name` ("Trainium2"), for what holds for
// every type of that device (physical cores, LNC values); nullptr for a device without facts.
const InstanceFacts* facts_of_device(std::string_view device_name);
// The instance types with facts, for messages: "trn1.2xlarge, trn1.32xlarge, ...".
std::string instance_facts_types_text();

}  // namespace trn::topology
