#include "trn/health/node_checks.hpp"
#include "trn/topology/instance_facts.hpp"
#include "trn/topology/instance_maps.hpp"
#include "trn/topology/node_identity.hpp"

namespace trn::health {

Expected expected_for(const std::filesystem::path& fsroot) {
  Expected expected;
  expected.instance_type = topology::read_instance_type(fsroot);
  const auto* map = topology::documented_instance_map(expected.instance_type);
  if (map == nullptr) return expected;
  expected.documented = true;
  expected.devices = static_cast<unsigned>(map->devices.size());
  if (const auto* facts = topology::instance_facts(expected.instance_type)) {
    expected.device_name = std::string(facts->device_name);
    expected.cores_per_device = facts->physical_cores_per_device;
  }
  for (const auto& device : map->devices) {
    if (device.efa_pci.empty()) continue;
    auto& served = expected.efa_served["0000:" + std::string(device.efa_pci)];
    served += (served.empty() ? "neuron" : ", neuron") + std::to_string(device.index);
  }
  expected.efa_devices = static_cast<unsigned>(expected.efa_served.size());
  return expected;
}

}  // namespace trn::health
