#include "trn/topology/topology_cache.hpp"

#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "trn/topology/topology_json.hpp"

namespace trn::topology {
namespace {

std::string root_key(const std::filesystem::path& fsroot) {
  return fsroot.lexically_normal().string();
}

}  // namespace

std::optional<NodeTopology> load_cached_topology(const std::filesystem::path& cache_file,
                                                 const std::filesystem::path& fsroot,
                                                 std::string* why_not) {
  const auto reject = [&](std::string why) -> std::optional<NodeTopology> {
    if (why_not != nullptr) *why_not = std::move(why);
    return std::nullopt;
  };
  FileRead cached = try_read_text(cache_file);
  if (!cached.ok()) return reject("no readable topology cache at " + cache_file.string());
  NodeTopology topology;
  try {
    topology = topology_from_json(cached.text, cache_file.string());
  } catch (const Error& e) {
    return reject(e.what());
  }
  if (root_key(topology.fsroot) != root_key(fsroot)) {
    return reject(cache_file.string() + " describes root " + topology.fsroot + ", not " +
                  fsroot.string());
  }
  const FileRead boot = try_read_text(fsroot / kBootIdFile);
  if (!boot.ok()) {
    return reject("no boot id at " + (fsroot / kBootIdFile).string() +
                  " to check the topology cache against");
  }
  if (topology.boot_id.empty() || std::string(trim(boot.text)) != topology.boot_id) {
    return reject(cache_file.string() + " was written during another boot");
  }
  return topology;
}

void save_topology_cache(const NodeTopology& topology, const std::filesystem::path& cache_file) {
  if (topology.boot_id.empty()) {
    // A cache without a boot id could outlive a reboot that changed the node.
    throw Error("no boot id at " + (std::filesystem::path(topology.fsroot) / kBootIdFile).string() +
                ", so the topology is discovered each time instead of cached");
  }
  write_file_atomically(cache_file, topology_to_json(topology), 0644);
}

CachedDiscovery cached_or_discovered(const std::filesystem::path& cache_file,
                                     const std::filesystem::path& fsroot,
                                     const std::function<NodeTopology()>& discover_now,
                                     bool write_back) {
  CachedDiscovery out;
  if (auto cached = load_cached_topology(cache_file, fsroot, &out.why_discovered)) {
    out.topology = std::move(*cached);
    out.from_cache = true;
    return out;
  }
  out.topology = discover_now();
  out.note = "discovered the node topology";
  // Without a boot id, the reason the cache was not read and the reason it is not written are
  // the same: say it once, below.
  if (!out.topology.boot_id.empty()) out.note += " (" + out.why_discovered + ")";
  if (!write_back) return out;
  try {
    save_topology_cache(out.topology, cache_file);
  } catch (const Error& e) {
    out.cache_write_error = e.what();
    out.note += "; not cached: " + out.cache_write_error;
  }
  return out;
}

CachedDiscovery discover_cached(const DiscoveryOptions& options,
                                const std::filesystem::path& cache_file) {
  return cached_or_discovered(
      cache_file, options.fsroot, [&options] { return discover(options); }, true);
}

}  // namespace trn::topology
