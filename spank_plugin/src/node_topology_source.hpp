#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "plugin_config.hpp"
#include "trn/topology/node_topology.hpp"

// Where the adaptor gets the node's topology: the per-boot cache when valid, else discovery
// (which needs root: core_count is mode 0400), then the cache is rewritten.
namespace trn::spank {

struct NodeTopologyResult {
  topology::NodeTopology topology;
  bool from_cache = false;
  std::string note;  // why it was discovered, or why the cache could not be written
};

// The cache file for this configuration: the default root with the default neuron-ls source uses
// <topology_cache>/topology.json (what the other tools read); any other root or neuron-ls source
// gets a file of its own, so a fixture and the real root never overwrite each other.
// std::nullopt with topology_cache=off.
std::optional<std::filesystem::path> topology_cache_file(const PluginConfig& config);

// Throws trn::Error from discovery (the message names the file at fault).
NodeTopologyResult load_node_topology(const PluginConfig& config);

}  // namespace trn::spank
