#include "pci_map.hpp"

#include <map>
#include <set>

#include "trn/common/error.hpp"
#include "trn/topology/instance_maps.hpp"

namespace trn::topology {
namespace {

constexpr std::string_view kRecordFix =
    "record the node's map with `neuron-ls -j > FILE` and pass that file as the recorded "
    "neuron-ls output";

struct MapEntry {
  PciAddress pci;
  std::optional<int> documented_numa;
};

std::map<unsigned, MapEntry> choose_map(const std::vector<NeuronDevice>& devices,
                                        const std::vector<PciFunction>& functions,
                                        const PciMapInput& input, std::string& source) {
  std::map<unsigned, MapEntry> map;
  if (input.neuron_ls != nullptr) {
    source = "neuron-ls -j (" + input.neuron_ls_origin + ")";
    for (const auto& entry : *input.neuron_ls) map[entry.index] = {entry.pci, std::nullopt};
    return map;
  }
  if (const auto* documented = documented_instance_map(input.instance_type)) {
    source = "documented map for " + input.instance_type;
    for (const auto& entry : documented->devices) {
      const auto pci = PciAddress::parse(std::string("0000:") + std::string(entry.pci), source);
      map[entry.index] = {pci, entry.numa_node};
    }
    return map;
  }
  if (devices.size() == 1 && functions.size() == 1) {
    source = "the only Neuron PCI function";
    map[devices.front().index] = {functions.front().address, std::nullopt};
    return map;
  }
  throw Error("this node has " + std::to_string(devices.size()) + " Neuron devices and " +
              "instance type '" + input.instance_type +
              "' has no documented Neuron index -> PCI map (sysfs does not link the two): " +
              std::string(kRecordFix));
}

}  // namespace

std::string attach_pci_functions(std::vector<NeuronDevice>& devices,
                                 const std::vector<PciFunction>& functions,
                                 const PciMapInput& input) {
  if (devices.empty()) {
    if (!functions.empty()) {
      throw Error(input.pci_root + " has " + std::to_string(functions.size()) +
                  " Neuron PCI functions (first " + functions.front().address.to_string() +
                  ") but the Neuron driver exposes no device under "
                  "sys/devices/virtual/neuron_device: load the driver (modprobe neuron)");
    }
    return "no Neuron devices";
  }
  std::string source;
  const auto map = choose_map(devices, functions, input, source);
  std::map<PciAddress, const PciFunction*> present;
  for (const auto& function : functions) present[function.address] = &function;
  std::set<PciAddress> claimed;
  for (auto& device : devices) {
    const std::string name = "neuron" + std::to_string(device.index);
    const auto entry = map.find(device.index);
    if (entry == map.end()) {
      throw Error(name + " is not in the " + source + ", which lists " +
                  std::to_string(map.size()) + " devices: " + std::string(kRecordFix));
    }
    const auto& pci = entry->second.pci;
    const auto function = present.find(pci);
    if (function == present.end()) {
      throw Error(name + " maps to PCI function " + pci.to_string() + " (" + source + ") but " +
                  input.pci_root +
                  " has no Neuron function there: the map does not describe this node; " +
                  std::string(kRecordFix));
    }
    if (!claimed.insert(pci).second) {
      throw Error(source + " maps two Neuron devices to PCI function " + pci.to_string() + ": " +
                  std::string(kRecordFix));
    }
    const auto& documented_numa = entry->second.documented_numa;
    if (documented_numa && function->second->numa_node >= 0 &&
        *documented_numa != function->second->numa_node) {
      throw Error(name + " maps to PCI function " + pci.to_string() + " (" + source +
                  ", NUMA node " + std::to_string(*documented_numa) +
                  ") but sysfs reports NUMA "
                  "node " +
                  std::to_string(function->second->numa_node) +
                  ": the map does not describe this node; " + std::string(kRecordFix));
    }
    device.pci = pci;
    device.pci_device_id = function->second->device_id;
    device.numa_node = function->second->numa_node;
    device.local_cpus = function->second->local_cpus;
  }
  for (const auto& function : functions) {
    if (!claimed.contains(function.address)) {
      throw Error("Neuron PCI function " + function.address.to_string() + " in " + input.pci_root +
                  " belongs to no Neuron device of the " + source + " (" +
                  std::to_string(devices.size()) + " devices, " + std::to_string(functions.size()) +
                  " functions): " + std::string(kRecordFix));
    }
  }
  return source;
}

}  // namespace trn::topology
