#include "trn/topology/instance_maps.hpp"

#include <array>
#include <cstddef>
#include <span>

#include "trn/topology/instance_facts.hpp"

namespace trn::topology {
namespace {

// Every documented device, grouped by instance type in kMaps' order; a group starts at its
// device 0 (neuron-ls index).
constexpr std::array<DocumentedDevice, 61> kDevices{{
    // trn1.2xlarge
    {0, "00:1e.0", 0, ""},
    // trn1.32xlarge
    {0, "10:1c.0", 0, "10:1a.0"},
    {1, "10:1d.0", 0, "10:1a.0"},
    {2, "a0:1c.0", 1, "a0:1a.0"},
    {3, "a0:1d.0", 1, "a0:1a.0"},
    {4, "20:1b.0", 0, "20:19.0"},
    {5, "20:1c.0", 0, "20:19.0"},
    {6, "90:1b.0", 1, "90:19.0"},
    {7, "90:1c.0", 1, "90:19.0"},
    {8, "20:1d.0", 0, "20:1a.0"},
    {9, "20:1e.0", 0, "20:1a.0"},
    {10, "90:1d.0", 1, "90:1a.0"},
    {11, "90:1e.0", 1, "90:1a.0"},
    {12, "10:1e.0", 0, "10:19.0"},
    {13, "10:1b.0", 0, "10:19.0"},
    {14, "a0:1e.0", 1, "a0:19.0"},
    {15, "a0:1b.0", 1, "a0:19.0"},
    // trn1n.32xlarge
    {0, "10:1c.0", 0, "10:17.0"},
    {1, "10:1d.0", 0, "10:1a.0"},
    {2, "a0:1c.0", 1, "a0:17.0"},
    {3, "a0:1d.0", 1, "a0:1a.0"},
    {4, "20:1b.0", 0, "20:19.0"},
    {5, "20:1c.0", 0, "20:18.0"},
    {6, "90:1b.0", 1, "90:19.0"},
    {7, "90:1c.0", 1, "90:18.0"},
    {8, "20:1d.0", 0, "20:17.0"},
    {9, "20:1e.0", 0, "20:1a.0"},
    {10, "90:1d.0", 1, "90:17.0"},
    {11, "90:1e.0", 1, "90:1a.0"},
    {12, "10:1e.0", 0, "10:19.0"},
    {13, "10:1b.0", 0, "10:18.0"},
    {14, "a0:1e.0", 1, "a0:19.0"},
    {15, "a0:1b.0", 1, "a0:18.0"},
    // trn2.48xlarge
    {0, "cc:00.0", 1, "c9:00.0"},
    {1, "b5:00.0", 1, "b4:00.0"},
    {2, "b6:00.0", 1, "b3:00.0"},
    {3, "cb:00.0", 1, "ca:00.0"},
    {4, "6f:00.0", 0, "6c:00.0"},
    {5, "58:00.0", 0, "57:00.0"},
    {6, "59:00.0", 0, "56:00.0"},
    {7, "6e:00.0", 0, "6d:00.0"},
    {8, "9b:00.0", 0, "98:00.0"},
    {9, "84:00.0", 0, "83:00.0"},
    {10, "85:00.0", 0, "82:00.0"},
    {11, "9a:00.0", 0, "99:00.0"},
    {12, "f8:00.0", 1, "f5:00.0"},
    {13, "e1:00.0", 1, "e0:00.0"},
    {14, "e2:00.0", 1, "df:00.0"},
    {15, "f7:00.0", 1, "f6:00.0"},
    // inf2.48xlarge
    {0, "80:1e.0", 2, ""},
    {1, "90:1e.0", 3, ""},
    {2, "80:1d.0", 2, ""},
    {3, "90:1f.0", 3, ""},
    {4, "80:1f.0", 2, ""},
    {5, "90:1d.0", 3, ""},
    {6, "20:1e.0", 1, ""},
    {7, "20:1f.0", 1, ""},
    {8, "10:1e.0", 0, ""},
    {9, "10:1f.0", 0, ""},
    {10, "10:1d.0", 0, ""},
    {11, "20:1d.0", 1, ""},
}};

// The `group`-th run of kDevices that starts at device 0.
constexpr std::span<const DocumentedDevice> device_group(std::size_t group) {
  std::size_t begin = 0;
  for (std::size_t seen = 0; begin < kDevices.size(); ++begin) {
    if (kDevices[begin].index == 0 && seen++ == group) break;
  }
  std::size_t end = begin + 1;
  while (end < kDevices.size() && kDevices[end].index != 0) ++end;
  return std::span<const DocumentedDevice>(kDevices).subspan(begin, end - begin);
}

constexpr std::array<InstanceMap, 5> kMaps{{
    {"trn1.2xlarge", device_group(0)},
    {"trn1.32xlarge", device_group(1)},
    {"trn1n.32xlarge", device_group(2)},
    {"trn2.48xlarge", device_group(3)},
    {"inf2.48xlarge", device_group(4)},
}};
static_assert(kMaps[0].devices.size() == 1 && kMaps[1].devices.size() == 16 &&
              kMaps[2].devices.size() == 16 && kMaps[3].devices.size() == 16 &&
              kMaps[4].devices.size() == 12);

}  // namespace

const InstanceMap* documented_instance_map(std::string_view instance_type) {
  for (const auto& map : kMaps) {
    if (map.instance_type == instance_type) return &map;
  }
  return nullptr;
}

bool is_neuron_pci_device(unsigned device_id) {
  return (device_id >= 0x7064 && device_id <= 0x7067) || device_id == 0x7164 ||
         device_id == 0x7264 || device_id == 0x7364;
}

bool is_efa_pci_device(unsigned device_id) { return device_id >= 0xefa0 && device_id <= 0xefa3; }

unsigned documented_cores_per_device(std::string_view device_name) {
  if (const auto* facts = facts_of_device(device_name)) return facts->physical_cores_per_device;
  return device_name == "Inferentia" ? 4 : 0;  // Inf1, which has no instance facts here
}

std::optional<unsigned> documented_neuron_cores(std::string_view instance_type, unsigned lnc) {
  const InstanceFacts* facts = instance_facts(instance_type);
  if (facts == nullptr) return std::nullopt;
  // A config the type does not offer (any on Trainium1) leaves its default: callers that must
  // refuse one check offers_lnc themselves (plan/instance_cores.hpp).
  return facts->logical_cores(facts->offers_lnc(lnc) ? lnc : facts->default_lnc);
}

}  // namespace trn::topology
