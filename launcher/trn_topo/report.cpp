#include "report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "trn/topology/topology_json.hpp"

namespace trn::topo_tool {
namespace {

template <typename T>
std::string joined(const std::vector<T>& items, const char* separator = ",") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    if constexpr (std::is_same_v<T, std::string>) {
      out += item;
    } else {
      out += std::to_string(item);
    }
  }
  return out;
}

std::size_t cores_on(const topology::NodeTopology& t, unsigned node) {
  return std::size_t(std::count_if(t.cores.begin(), t.cores.end(),
                                   [&](const auto& core) { return core.numa_node == int(node); }));
}

void print_node(std::ostream& out, const Report& r) {
  const auto& t = r.topology;
  out << "Node: " << (t.instance_type.empty() ? "unknown instance type" : t.instance_type)
      << ", kernel " << t.kernel_release << ", root " << t.fsroot << "\n"
      << "Topology: " << r.topology_note << "\n\nNUMA nodes (" << t.numa_nodes.size() << "):\n";
  for (const auto& node : t.numa_nodes) {
    out << "  node " << node.os_index << ": CPUs " << node.cpus.to_string() << " ("
        << cores_on(t, node.os_index) << " cores)\n";
  }
  out << "CPUs: " << t.cpus.to_string() << " (" << t.cores.size() << " cores)\n\n";
  if (t.devices.empty()) {
    out << "Neuron devices: none\n";
  } else {
    const auto& first = t.devices.front();
    out << "Neuron devices (" << t.devices.size() << " x " << first.device_name << ", "
        << first.physical_cores << " NeuronCores each; PCI map: " << t.pci_map_source << "):\n";
    for (const auto& d : t.devices) {
      out << "  neuron" << d.index << "  " << d.pci.to_string() << "  NUMA " << d.numa_node
          << "  connected " << (d.connected_devices.empty() ? "-" : joined(d.connected_devices))
          << "  EFA " << (d.efa_devices.empty() ? "-" : joined(d.efa_devices)) << "\n";
    }
    if (first.core_count_source != "sysfs") {
      out << "  core count: " << first.core_count_source << "\n";
    }
  }
  out << "\nEFA devices";
  if (t.efa_devices.empty()) {
    out << ": none\n";
  } else {
    out << " (" << t.efa_devices.size() << "):\n";
  }
  for (const auto& e : t.efa_devices) {
    out << "  " << e.name << "  " << e.pci.to_string() << "  NUMA " << e.numa_node << "\n";
  }
}

void print_tasks(std::ostream& out, const Report& r) {
  const auto& p = r.placement;
  out << "\nStep: " << p.tasks.size() << " task(s)";
  if (p.has_neuron_cores()) {
    out << " x " << p.cores_per_task << " NeuronCores (LNC " << p.lnc << ", " << p.cores_per_device
        << " per device)";
  }
  out << ", bind " << placement::to_string(p.bind) << ", step CPUs " << p.allowed_cpus.to_string()
      << "\n";
  for (const auto& note : p.notes) out << "  note: " << note << "\n";
  for (const auto& note : r.step_environment.notes) out << "  note: " << note << "\n";
  for (std::size_t i = 0; i < p.tasks.size(); ++i) {
    const auto& task = p.tasks[i];
    out << "Task " << i << ": NeuronCores "
        << (task.visible_cores.empty() ? "-" : task.visible_cores);
    if (!task.devices.empty()) out << " (neuron" << joined(task.devices, ",neuron") << ")";
    out << ", CPUs " << task.cpu_list << (p.bind_cpus ? "" : " (not bound)") << "\n";
    const auto& env = r.tasks[i];
    for (const auto& var : env.set) out << "  " << var.name << "=" << var.value << "\n";
    if (!env.kept.empty()) out << "  kept from your environment: " << joined(env.kept, " ") << "\n";
    for (const auto& warning : env.warnings) out << "  warning: " << warning << "\n";
  }
}

void print_fabric(std::ostream& out, const health::FabricProviders& f, bool has_efa) {
  out << "\nlibfabric providers (fi_getinfo): ";
  if (!f.error.empty()) {
    out << "none (" << f.error << ")\n";
  } else {
    out << (f.providers.empty() ? "none" : joined(f.providers, ", ")) << "\n";
  }
  const bool efa = std::find(f.providers.begin(), f.providers.end(), "efa") != f.providers.end();
  if (has_efa && !efa) {
    out << "  warning: this node has EFA devices but libfabric offers no efa provider: install "
           "the libfabric of the AWS EFA installer (/opt/amazon/efa)\n";
  }
}

nlohmann::json task_json(const placement::TaskPlacement& task,
                         const taskenv::TaskEnvironment& env) {
  nlohmann::json environment = nlohmann::json::object();
  for (const auto& var : env.set) environment[var.name] = var.value;
  return {{"local_task", task.local_task}, {"neuron_cores", task.visible_cores},
          {"devices", task.devices},       {"numa_nodes", task.numa_nodes},
          {"cpus", task.cpu_list},         {"efa_devices", task.efa_devices},
          {"environment", environment},    {"kept", env.kept},
          {"warnings", env.warnings}};
}

}  // namespace

void print_text(std::ostream& out, const Report& r) {
  print_node(out, r);
  print_tasks(out, r);
  if (r.fabric) print_fabric(out, *r.fabric, !r.topology.efa_devices.empty());
}

void print_json(std::ostream& out, const Report& r) {
  const auto& p = r.placement;
  nlohmann::json tasks = nlohmann::json::array();
  for (std::size_t i = 0; i < p.tasks.size(); ++i)
    tasks.push_back(task_json(p.tasks[i], r.tasks[i]));
  std::vector<std::string> notes = p.notes;
  notes.insert(notes.end(), r.step_environment.notes.begin(), r.step_environment.notes.end());
  nlohmann::json doc = {{"topology", nlohmann::json::parse(topology::topology_to_json(r.topology))},
                        {"topology_source", r.topology_note},
                        {"placement",
                         {{"lnc", p.lnc},
                          {"cores_per_device", p.cores_per_device},
                          {"cores_per_task", p.cores_per_task},
                          {"bind", placement::to_string(p.bind)},
                          {"bind_cpus", p.bind_cpus},
                          {"step_cpus", p.allowed_cpus.to_string()},
                          {"notes", notes},
                          {"tasks", tasks}}}};
  if (r.fabric) {
    doc["libfabric"] = {{"providers", r.fabric->providers}, {"error", r.fabric->error}};
  }
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace trn::topo_tool
