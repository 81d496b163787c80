#include "trn/topology/discover.hpp"

#include <algorithm>

#include "cpu_topology.hpp"
#include "efa_sysfs.hpp"
#include "neuron_sysfs.hpp"
#include "pci_functions.hpp"
#include "pci_map.hpp"
#include "sysfs.hpp"
#include "trn/common/error.hpp"
#include "trn/topology/instance_maps.hpp"
#include "trn/topology/kernel_release.hpp"
#include "trn/topology/node_identity.hpp"

namespace trn::topology {
namespace {

// The NUMA node of a PCI function that reports none (-1): the only node, or the node holding
// all of its local CPUs.
int infer_numa_node(int reported, const IdList& local_cpus, const std::vector<NumaNode>& nodes) {
  if (reported >= 0) return reported;
  if (nodes.size() == 1) return int(nodes.front().os_index);
  for (const auto& node : nodes) {
    if (!local_cpus.empty() && node.cpus.contains_all(local_cpus)) return int(node.os_index);
  }
  return -1;
}

void check_numa_node(int numa_node, const NodeTopology& node, const std::string& what) {
  if (numa_node < 0 || node.numa_node(unsigned(numa_node)) != nullptr) return;
  std::string known;
  for (const auto& n : node.numa_nodes)
    known += (known.empty() ? "" : ",") + std::to_string(n.os_index);
  throw Error(what + " reports NUMA node " + std::to_string(numa_node) +
              " but the CPU topology has NUMA nodes " + known + ": check the filesystem root");
}

void link_efa(NodeTopology& node) {
  const InstanceMap* documented = documented_instance_map(node.instance_type);
  for (auto& device : node.devices) {
    if (documented != nullptr) {
      for (const auto& entry : documented->devices) {
        if (entry.index != device.index || entry.efa_pci.empty()) continue;
        const auto pci = PciAddress::parse("0000:" + std::string(entry.efa_pci), "EFA map");
        for (const auto& efa : node.efa_devices) {
          if (efa.pci == pci) device.efa_devices.push_back(efa.name);
        }
      }
    }
    if (!device.efa_devices.empty() || device.numa_node < 0) continue;
    // No documented pairing (or that EFA is not attached): the EFAs on the device's NUMA node.
    for (const auto& efa : node.efa_devices) {
      if (efa.numa_node == device.numa_node) device.efa_devices.push_back(efa.name);
    }
  }
}

}  // namespace

NodeTopology discover(const DiscoveryOptions& options) {
  const auto& root = options.fsroot;
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    throw Error("filesystem root '" + root.string() +
                "' is not a directory: pass an existing "
                "directory (\"/\" on a node, a recorded tree in tests)");
  }
  NodeTopology node;
  node.fsroot = root.string();
  node.instance_type = read_instance_type(root);
  const auto release_file = sysfs::under(root, "proc/sys/kernel/osrelease");
  node.kernel_release = sysfs::read(release_file, "is procfs mounted under the filesystem root?");
  parse_kernel_release(node.kernel_release, release_file.string());
  // Only the per-boot cache needs the boot id: without one, discovery goes on and the
  // topology is simply not cached (save_topology_cache says so).
  node.boot_id = read_boot_id(root);

  CpuTopology cpus = read_cpu_topology(root);
  node.numa_nodes = std::move(cpus.numa_nodes);
  node.cores = std::move(cpus.cores);
  node.cpus = std::move(cpus.cpus);

  std::vector<NeuronLsDevice> neuron_ls;
  PciMapInput map_input;
  map_input.instance_type = node.instance_type;
  map_input.pci_root = sysfs::under(root, "sys/bus/pci/devices").string();
  if (options.neuron_ls) {
    neuron_ls = parse_neuron_ls(*options.neuron_ls);
    map_input.neuron_ls = &neuron_ls;
    map_input.neuron_ls_origin = options.neuron_ls->origin;
    for (const auto& entry : neuron_ls) {
      if (entry.logical_core_config) node.neuron_ls_lnc = entry.logical_core_config;
    }
  }
  node.devices = read_neuron_devices(root);
  node.pci_map_source =
      attach_pci_functions(node.devices, find_neuron_pci_functions(root), map_input);
  for (auto& device : node.devices) {
    device.numa_node = infer_numa_node(device.numa_node, device.local_cpus, node.numa_nodes);
    check_numa_node(
        device.numa_node, node,
        "neuron" + std::to_string(device.index) + " (PCI " + device.pci.to_string() + ")");
  }
  node.efa_devices = read_efa_devices(root);
  for (auto& efa : node.efa_devices) {
    efa.numa_node = infer_numa_node(efa.numa_node, efa.local_cpus, node.numa_nodes);
    check_numa_node(efa.numa_node, node, efa.name + " (PCI " + efa.pci.to_string() + ")");
  }
  link_efa(node);
  return node;
}

}  // namespace trn::topology
