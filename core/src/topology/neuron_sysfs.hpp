#pragma once

// The Neuron devices the driver exposes under <root>/sys/devices/virtual/neuron_device
// (internal). PCI locality is filled in later, from the index -> PCI map.

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "trn/topology/node_topology.hpp"

namespace trn::topology {

// Ordered by index. core_count and connected_devices are root-only (mode 0400): without the
// right to read them, the core count comes from the documented count for the device name
// (and core_count_source says so) and the links are left empty.
std::vector<NeuronDevice> read_neuron_devices(const std::filesystem::path& root);

// The index of a Neuron device directory name ("neuron12" -> 12); nullopt for anything else
// ("neuron_core0", "neuronX").
std::optional<unsigned> neuron_device_index(std::string_view name);

}  // namespace trn::topology
