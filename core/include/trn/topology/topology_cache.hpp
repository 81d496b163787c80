#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "trn/topology/discover.hpp"
#include "trn/topology/node_topology.hpp"

namespace trn::topology {

// Where the SPANK plugin keeps the node's topology: /run is a tmpfs, emptied at boot.
inline constexpr const char* kDefaultTopologyCache = "/run/trn-slurm/topology.json";

// The cached topology when `cache_file` holds one discovered from `fsroot` during the current
// boot (boot id read again under fsroot); otherwise std::nullopt and, if given, `why_not` says
// why (absent, stale, unreadable). Never throws for a bad cache: it is rediscovered instead.
std::optional<NodeTopology> load_cached_topology(const std::filesystem::path& cache_file,
                                                 const std::filesystem::path& fsroot,
                                                 std::string* why_not = nullptr);

// Atomic (temporary file + rename), mode 0644; throws trn::Error when the file cannot be
// written or the topology has no boot id (kBootIdFile was absent: nothing to check it against).
void save_topology_cache(const NodeTopology& topology, const std::filesystem::path& cache_file);

struct CachedDiscovery {
  NodeTopology topology;
  bool from_cache = false;
  std::string note;  // for a verbose log line: why it was (re)discovered, or a write failure
  std::string why_discovered;     // why the cache was not used; empty when it was, or without one
  std::string cache_write_error;  // why the rediscovered topology could not be cached
};

// The cached topology when valid, else discover_now(), written back to the cache when
// `write_back`. A cache that cannot be written is reported in `note`, not thrown.
CachedDiscovery cached_or_discovered(const std::filesystem::path& cache_file,
                                     const std::filesystem::path& fsroot,
                                     const std::function<NodeTopology()>& discover_now,
                                     bool write_back);

// The cached topology when valid, else discover(options) and rewrite the cache. A cache that
// cannot be written is reported in `note`, not thrown: the step can go on without it.
CachedDiscovery discover_cached(const DiscoveryOptions& options,
                                const std::filesystem::path& cache_file);

}  // namespace trn::topology
