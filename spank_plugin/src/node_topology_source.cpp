#include "node_topology_source.hpp"

namespace trn::spank {
namespace {

topology::NodeTopologySource source_of(const PluginConfig& config) {
  topology::NodeTopologySource source;
  source.fsroot = config.fsroot;
  source.neuron_ls = config.neuron_ls;
  source.neuron_ls_file = config.neuron_ls_file;
  return source;
}

}  // namespace

std::optional<std::filesystem::path> topology_cache_file(const PluginConfig& config) {
  if (!config.topology_cache) return std::nullopt;
  return topology::topology_cache_file(*config.topology_cache, source_of(config));
}

topology::CachedDiscovery load_node_topology(const PluginConfig& config) {
  auto source = source_of(config);
  source.cache_file = topology_cache_file(config);
  auto result = topology::load_node_topology(source);
  if (!result.from_cache) {
    // For the step's summary line: "topology discovered (<note>)".
    result.note = source.cache_file ? result.why_discovered : "topology_cache=off";
    if (!result.cache_write_error.empty())
      result.note += "; not cached: " + result.cache_write_error;
  }
  return result;
}

}  // namespace trn::spank
