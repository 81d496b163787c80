#include "cpu_binding.hpp"

#include <algorithm>

namespace trn::placement {
namespace {

std::string node_list(const std::vector<unsigned>& nodes) {
  std::string out;
  for (unsigned n : nodes) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

void bind_numa(const topology::NodeTopology& topology, const IdList& allowed,
               std::vector<TaskPlacement>& tasks, std::vector<std::string>& notes) {
  for (auto& task : tasks) {
    IdList cpus;
    for (unsigned n : task.numa_nodes) {
      if (const auto* node = topology.numa_node(n)) cpus = cpus.united(node->cpus);
    }
    cpus = cpus.intersection(allowed);
    if (cpus.empty()) {
      if (!task.numa_nodes.empty()) {
        notes.push_back("task " + std::to_string(task.local_task) +
                        ": the step has no CPU on "
                        "NUMA node " +
                        node_list(task.numa_nodes) +
                        " of its Neuron devices; bound to all the step's CPUs");
      }
      cpus = allowed;
    }
    task.cpus = std::move(cpus);
  }
}

bool on_node(const TaskPlacement& task, unsigned node) {
  return task.numa_nodes.empty() ||
         std::find(task.numa_nodes.begin(), task.numa_nodes.end(), node) != task.numa_nodes.end();
}

// Each NUMA node's allowed physical cores are split evenly, in order, between the tasks whose
// devices are on that node (tasks without devices count as on every node); a task spanning
// several nodes gets a share of each. Hyperthread siblings stay together.
void bind_cores(const topology::NodeTopology& topology, const IdList& allowed,
                std::vector<TaskPlacement>& tasks, std::vector<std::string>& notes) {
  for (auto& task : tasks) task.cpus = IdList();
  for (const auto& node : topology.numa_nodes) {
    std::vector<IdList> pool;
    for (const auto& core : topology.cores) {
      if (core.numa_node != int(node.os_index)) continue;
      IdList threads = core.cpus.intersection(allowed);
      if (!threads.empty()) pool.push_back(std::move(threads));
    }
    std::vector<TaskPlacement*> sharing;
    for (auto& task : tasks) {
      if (on_node(task, node.os_index)) sharing.push_back(&task);
    }
    if (sharing.empty() || pool.empty()) continue;
    const std::size_t n = sharing.size(), m = pool.size();
    if (m < n) {
      notes.push_back(std::to_string(n) + " tasks share the " + std::to_string(m) +
                      " allowed cores of NUMA node " + std::to_string(node.os_index));
      for (std::size_t i = 0; i < n; ++i) sharing[i]->cpus = sharing[i]->cpus.united(pool[i % m]);
      continue;
    }
    std::size_t next = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t count = m / n + (i < m % n ? 1 : 0);
      for (std::size_t c = 0; c < count; ++c) {
        sharing[i]->cpus = sharing[i]->cpus.united(pool[next++]);
      }
    }
  }
  for (auto& task : tasks) {
    if (!task.cpus.empty()) continue;
    notes.push_back("task " + std::to_string(task.local_task) +
                    ": no allowed core on the NUMA node of its devices; bound to all the "
                    "step's CPUs");
    task.cpus = allowed;
  }
}

}  // namespace

void bind_cpus(const topology::NodeTopology& topology, BindMode mode, const IdList& allowed,
               std::vector<TaskPlacement>& tasks, std::vector<std::string>& notes) {
  switch (mode) {
    case BindMode::kNuma:
      bind_numa(topology, allowed, tasks, notes);
      break;
    case BindMode::kCores:
      bind_cores(topology, allowed, tasks, notes);
      break;
    case BindMode::kNone:
      for (auto& task : tasks) task.cpus = allowed;
      break;
  }
}

}  // namespace trn::placement
