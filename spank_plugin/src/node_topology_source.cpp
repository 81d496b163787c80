#include "node_topology_source.hpp"

#include "trn/common/error.hpp"
#include "trn/common/fnv1a.hpp"
#include "trn/topology/discover.hpp"
#include "trn/topology/neuron_ls.hpp"
#include "trn/topology/topology_cache.hpp"

namespace trn::spank {
namespace {

std::string neuron_ls_key(const PluginConfig& config) {
  switch (config.neuron_ls) {
    case NeuronLsSource::kAuto:
      return "auto";
    case NeuronLsSource::kOff:
      return "off";
    case NeuronLsSource::kFile:
      return "file:" + config.neuron_ls_file.string();
  }
  return "?";
}

std::optional<topology::NeuronLsOutput> neuron_ls_for(const PluginConfig& config) {
  switch (config.neuron_ls) {
    case NeuronLsSource::kOff:
      return std::nullopt;
    case NeuronLsSource::kFile:
      return topology::read_neuron_ls_file(config.neuron_ls_file);
    case NeuronLsSource::kAuto:
      if (config.real_root()) return topology::run_neuron_ls();
      if (std::filesystem::exists(config.fsroot / "neuron-ls.json")) {
        return topology::read_neuron_ls_file(config.fsroot / "neuron-ls.json");
      }
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::filesystem::path> topology_cache_file(const PluginConfig& config) {
  if (!config.topology_cache) return std::nullopt;
  if (config.real_root() && config.neuron_ls == NeuronLsSource::kAuto) {
    return *config.topology_cache / "topology.json";
  }
  const std::string key = config.fsroot.string() + "\n" + neuron_ls_key(config);
  return *config.topology_cache / ("topology-" + fnv1a_64_hex(key) + ".json");
}

NodeTopologyResult load_node_topology(const PluginConfig& config) {
  NodeTopologyResult result;
  const auto cache_file = topology_cache_file(config);
  if (cache_file) {
    std::string why_not;
    if (auto cached = topology::load_cached_topology(*cache_file, config.fsroot, &why_not)) {
      result.topology = std::move(*cached);
      result.from_cache = true;
      return result;
    }
    result.note = why_not;
  }
  topology::DiscoveryOptions options;
  options.fsroot = config.fsroot;
  options.neuron_ls = neuron_ls_for(config);
  result.topology = topology::discover(options);
  if (cache_file) {
    try {
      topology::save_topology_cache(result.topology, *cache_file);
    } catch (const Error& e) {
      result.note += std::string("; not cached: ") + e.what();
    }
  } else {
    result.note = "topology_cache=off";
  }
  return result;
}

}  // namespace trn::spank
