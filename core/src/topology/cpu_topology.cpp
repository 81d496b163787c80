#include "cpu_topology.hpp"

#include <hwloc.h>
#include <stdlib.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "sysfs.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"

namespace trn::topology {
namespace {

// hwloc 2.x takes a different filesystem root only from the HWLOC_FSROOT environment variable.
// Changing the environment is not safe while other threads read it, so it is only done for a
// root other than "/" (fixtures, trn-topo --fsroot), serialised, and restored afterwards.
class ScopedFsRoot {
 public:
  explicit ScopedFsRoot(const std::filesystem::path& root) {
    previous_ = env_value("HWLOC_FSROOT");
    const bool real_root = root.lexically_normal() == "/";
    if (real_root && !previous_) return;
    lock_.emplace(mutex());
    changed_ = true;
    if (real_root) {
      ::unsetenv("HWLOC_FSROOT");
    } else {
      ::setenv("HWLOC_FSROOT", root.c_str(), 1);
    }
  }
  ~ScopedFsRoot() {
    if (!changed_) return;
    if (previous_) {
      ::setenv("HWLOC_FSROOT", previous_->c_str(), 1);
    } else {
      ::unsetenv("HWLOC_FSROOT");
    }
  }
  ScopedFsRoot(const ScopedFsRoot&) = delete;
  ScopedFsRoot& operator=(const ScopedFsRoot&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  std::optional<std::unique_lock<std::mutex>> lock_;
  std::optional<std::string> previous_;
  bool changed_ = false;
};

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

IdList to_id_list(hwloc_const_bitmap_t bitmap) {
  std::vector<unsigned> ids;
  for (int id = hwloc_bitmap_first(bitmap); id >= 0; id = hwloc_bitmap_next(bitmap, id)) {
    ids.push_back(static_cast<unsigned>(id));
  }
  return IdList(std::move(ids));
}

Topology load(const std::filesystem::path& root) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw Error("hwloc_topology_init failed: out of memory?");
  Topology topology(raw);
  // Only the Linux sysfs backend: the x86 CPUID backend would describe the host's processor
  // (not the one under root) and re-binds threads while probing.
  hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
  hwloc_topology_set_flags(
      raw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED | HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING |
               HWLOC_TOPOLOGY_FLAG_NO_DISTANCES | HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS |
               HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS);
  hwloc_topology_set_cache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  ScopedFsRoot scoped(root);
  if (hwloc_topology_load(raw) != 0) {
    throw Error("hwloc could not read the CPU topology under " + root.string() +
                ": check sys/devices/system/cpu and sys/devices/system/node there");
  }
  return topology;
}

}  // namespace

CpuTopology read_cpu_topology(const std::filesystem::path& root) {
  // hwloc falls back to the host's processor count when the files are missing, so the online
  // list is read first and everything hwloc reports is checked against it.
  const auto online_file = sysfs::under(root, "sys/devices/system/cpu/online");
  const IdList online =
      IdList::parse(sysfs::read(online_file, "is sysfs mounted under the filesystem root?"),
                    online_file.string());
  if (online.empty()) throw Error(online_file.string() + " lists no CPU: check the root");
  // hwloc asserts (aborting the process: slurmstepd, for the plugin) when the NUMA node list is
  // there and names no node; a list that is absent it does without.
  const auto nodes_file = sysfs::under(root, "sys/devices/system/node/online");
  if (const FileRead nodes = try_read_text(nodes_file);
      nodes.ok() && IdList::parse(nodes.text, nodes_file.string()).empty()) {
    throw Error(nodes_file.string() + " lists no NUMA node: check the root");
  }

  const Topology topology = load(root);
  CpuTopology out;
  hwloc_obj_t node = nullptr;
  while ((node = hwloc_get_next_obj_by_type(topology.get(), HWLOC_OBJ_NUMANODE, node))) {
    out.numa_nodes.push_back({node->os_index, to_id_list(node->cpuset).intersection(online)});
  }
  // Without core information hwloc has no Core objects: each CPU is then its own core.
  const hwloc_obj_type_t core_type =
      hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  hwloc_obj_t core = nullptr;
  while ((core = hwloc_get_next_obj_by_type(topology.get(), core_type, core))) {
    CpuCore entry{to_id_list(core->cpuset).intersection(online), -1};
    if (entry.cpus.empty()) continue;
    for (const auto& numa : out.numa_nodes) {
      if (numa.cpus.contains(entry.cpus.ids().front())) entry.numa_node = int(numa.os_index);
    }
    out.cpus = out.cpus.united(entry.cpus);
    out.cores.push_back(std::move(entry));
  }
  if (out.cpus != online) {
    throw Error("hwloc found CPUs '" + out.cpus.to_string() + "' under " + root.string() + " but " +
                online_file.string() + " lists '" + online.to_string() +
                "': sys/devices/system/cpu/cpu*/topology is incomplete there");
  }
  return out;
}

}  // namespace trn::topology
