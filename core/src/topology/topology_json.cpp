#include "trn/topology/topology_json.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "trn/common/error.hpp"

namespace trn::topology {
namespace {

using nlohmann::json;

// Conversions below throw nlohmann exceptions on a wrong shape; topology_from_json turns them
// into one trn::Error. `origin` is threaded through for IdList/PciAddress messages.
struct Reader {
  std::string origin;

  IdList ids(const json& j, const char* key) const {
    return IdList::parse(j.at(key).get<std::string>(), origin + " (" + key + ")");
  }
  PciAddress pci(const json& j) const {
    return PciAddress::parse(j.at("pci").get<std::string>(), origin);
  }

  NeuronDevice device(const json& j) const {
    NeuronDevice d;
    d.index = j.at("index").get<unsigned>();
    d.physical_cores = j.at("physical_cores").get<unsigned>();
    d.core_count_source = j.at("core_count_source").get<std::string>();
    d.connected_devices = j.at("connected_devices").get<std::vector<unsigned>>();
    d.arch_type = j.at("arch_type").get<std::string>();
    d.family = j.at("family").get<std::string>();
    d.device_name = j.at("device_name").get<std::string>();
    d.pci = pci(j);
    d.pci_device_id = j.at("pci_device_id").get<unsigned>();
    d.numa_node = j.at("numa_node").get<int>();
    d.local_cpus = ids(j, "local_cpus");
    d.efa_devices = j.at("efa_devices").get<std::vector<std::string>>();
    return d;
  }

  EfaDevice efa(const json& j) const {
    return {j.at("name").get<std::string>(), pci(j), j.at("pci_device_id").get<unsigned>(),
            j.at("numa_node").get<int>(), ids(j, "local_cpus")};
  }
};

bool holds_a_fraction(const json& value) {
  if (value.is_number_float()) return true;
  if (!value.is_structured()) return false;
  return std::any_of(value.begin(), value.end(), [](const json& v) { return holds_a_fraction(v); });
}

json write_device(const NeuronDevice& d) {
  return {{"index", d.index},
          {"physical_cores", d.physical_cores},
          {"core_count_source", d.core_count_source},
          {"connected_devices", d.connected_devices},
          {"arch_type", d.arch_type},
          {"family", d.family},
          {"device_name", d.device_name},
          {"pci", d.pci.to_string()},
          {"pci_device_id", d.pci_device_id},
          {"numa_node", d.numa_node},
          {"local_cpus", d.local_cpus.to_string()},
          {"efa_devices", d.efa_devices}};
}

json write_efa(const EfaDevice& e) {
  return {{"name", e.name},
          {"pci", e.pci.to_string()},
          {"pci_device_id", e.pci_device_id},
          {"numa_node", e.numa_node},
          {"local_cpus", e.local_cpus.to_string()}};
}

}  // namespace

std::string topology_to_json(const NodeTopology& t) {
  json devices = json::array();
  for (const auto& d : t.devices) devices.push_back(write_device(d));
  json efa = json::array();
  for (const auto& e : t.efa_devices) efa.push_back(write_efa(e));
  json numa = json::array();
  for (const auto& n : t.numa_nodes) {
    numa.push_back({{"os_index", n.os_index}, {"cpus", n.cpus.to_string()}});
  }
  json cores = json::array();
  for (const auto& c : t.cores) {
    cores.push_back({{"cpus", c.cpus.to_string()}, {"numa_node", c.numa_node}});
  }
  json doc = {{"format", kTopologyFormat},
              {"fsroot", t.fsroot},
              {"boot_id", t.boot_id},
              {"instance_type", t.instance_type},
              {"kernel_release", t.kernel_release},
              {"pci_map_source", t.pci_map_source},
              {"neuron_ls_lnc", t.neuron_ls_lnc ? json(*t.neuron_ls_lnc) : json(nullptr)},
              {"devices", devices},
              {"efa_devices", efa},
              {"numa_nodes", numa},
              {"cores", cores},
              {"cpus", t.cpus.to_string()}};
  // sysfs strings (DMI product name, device names) are not guaranteed UTF-8: never throw on them.
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

NodeTopology topology_from_json(std::string_view text, std::string_view origin) {
  const Reader r{std::string(origin)};
  const auto fail = [&](const std::string& why) -> Error {
    return Error(r.origin + ": not a trn-slurm node topology (" + why +
                 "): delete it so the topology is discovered again");
  };
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw fail("invalid JSON");
  // The file holds whole numbers only; get<int>() of a fraction or of 1e116 would convert a
  // double out of int's range, which is undefined behaviour (found by fuzz_neuron_ls).
  if (holds_a_fraction(doc)) throw fail("a number that is not a whole number");
  try {
    if (doc.at("format").get<int>() != kTopologyFormat) {
      throw fail("format " + doc.at("format").dump() + ", expected " +
                 std::to_string(kTopologyFormat));
    }
    NodeTopology t;
    t.fsroot = doc.at("fsroot").get<std::string>();
    t.boot_id = doc.at("boot_id").get<std::string>();
    t.instance_type = doc.at("instance_type").get<std::string>();
    t.kernel_release = doc.at("kernel_release").get<std::string>();
    t.pci_map_source = doc.at("pci_map_source").get<std::string>();
    if (!doc.at("neuron_ls_lnc").is_null()) t.neuron_ls_lnc = doc["neuron_ls_lnc"].get<unsigned>();
    for (const auto& d : doc.at("devices")) t.devices.push_back(r.device(d));
    for (const auto& e : doc.at("efa_devices")) t.efa_devices.push_back(r.efa(e));
    for (const auto& n : doc.at("numa_nodes")) {
      t.numa_nodes.push_back({n.at("os_index").get<unsigned>(), r.ids(n, "cpus")});
    }
    for (const auto& c : doc.at("cores")) {
      t.cores.push_back({r.ids(c, "cpus"), c.at("numa_node").get<int>()});
    }
    t.cpus = r.ids(doc, "cpus");
    return t;
  } catch (const json::exception& e) {
    throw fail(e.what());
  }
}

}  // namespace trn::topology
