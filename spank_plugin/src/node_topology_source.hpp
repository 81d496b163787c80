#pragma once

#include <filesystem>
#include <optional>

#include "plugin_config.hpp"
#include "trn/topology/node_topology_source.hpp"

// Where the adaptor gets the node's topology: core's load_node_topology with the site's
// plugstack.conf choices (fsroot=, neuron_ls=, topology_cache=).
namespace trn::spank {

// The cache file for this configuration (topology::topology_cache_file under topology_cache=);
// std::nullopt with topology_cache=off.
std::optional<std::filesystem::path> topology_cache_file(const PluginConfig& config);

// Throws trn::Error from discovery (the message names the file at fault).
topology::CachedDiscovery load_node_topology(const PluginConfig& config);

}  // namespace trn::spank
