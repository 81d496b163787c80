#pragma once

#include <filesystem>
#include <optional>

#include "trn/topology/neuron_ls.hpp"
#include "trn/topology/topology_cache.hpp"

// The topology of this node as the SPANK plugin and trn-topo get it: the per-boot cache when
// valid, else discovery with the chosen neuron-ls source, then the cache is rewritten.
namespace trn::topology {

enum class NeuronLsSource {
  kAuto,  // "/" root: run /opt/aws/neuron/bin/neuron-ls -j when installed; other roots: a
          // recorded <fsroot>/neuron-ls.json when present
  kOff,   // always the documented per-instance map
  kFile,  // a recorded `neuron-ls -j` output
};

struct NodeTopologySource {
  std::filesystem::path fsroot = "/";
  NeuronLsSource neuron_ls = NeuronLsSource::kAuto;
  std::filesystem::path neuron_ls_file;             // for NeuronLsSource::kFile
  std::optional<std::filesystem::path> cache_file;  // std::nullopt: discover every time
  bool write_cache = true;                          // rewrite the cache after discovering
};

// The `neuron-ls -j` output the source names; std::nullopt when there is none to use.
// Throws trn::Error when a file cannot be read or neuron-ls fails.
std::optional<NeuronLsOutput> neuron_ls_output(const NodeTopologySource& source);

// The cache file in `cache_dir` for a root and neuron-ls source: the default root with the
// default neuron-ls source uses <cache_dir>/topology.json (what the other tools read); any other
// root or source gets a file of its own, so a fixture and the real root never overwrite each
// other.
std::filesystem::path topology_cache_file(const std::filesystem::path& cache_dir,
                                          const NodeTopologySource& source);

// neuron-ls runs only when the cache cannot be used. Throws trn::Error from discovery (the
// message names the file at fault); a cache that cannot be written is only noted.
CachedDiscovery load_node_topology(const NodeTopologySource& source);

}  // namespace trn::topology
