#include "trn/topology/node_topology_source.hpp"

#include "trn/common/fnv1a.hpp"
#include "trn/topology/discover.hpp"

namespace trn::topology {
namespace {

bool real_root(const NodeTopologySource& source) { return source.fsroot.lexically_normal() == "/"; }

std::string neuron_ls_key(const NodeTopologySource& source) {
  switch (source.neuron_ls) {
    case NeuronLsSource::kAuto:
      return "auto";
    case NeuronLsSource::kOff:
      return "off";
    case NeuronLsSource::kFile:
      return "file:" + source.neuron_ls_file.string();
  }
  return "?";
}

}  // namespace

std::optional<NeuronLsOutput> neuron_ls_output(const NodeTopologySource& source) {
  switch (source.neuron_ls) {
    case NeuronLsSource::kOff:
      return std::nullopt;
    case NeuronLsSource::kFile:
      return read_neuron_ls_file(source.neuron_ls_file);
    case NeuronLsSource::kAuto:
      if (real_root(source)) return run_neuron_ls();
      if (std::filesystem::exists(source.fsroot / "neuron-ls.json")) {
        return read_neuron_ls_file(source.fsroot / "neuron-ls.json");
      }
      return std::nullopt;
  }
  return std::nullopt;
}

std::filesystem::path topology_cache_file(const std::filesystem::path& cache_dir,
                                          const NodeTopologySource& source) {
  if (real_root(source) && source.neuron_ls == NeuronLsSource::kAuto) {
    return cache_dir / "topology.json";
  }
  const std::string key = source.fsroot.string() + "\n" + neuron_ls_key(source);
  return cache_dir / ("topology-" + fnv1a_64_hex(key) + ".json");
}

CachedDiscovery load_node_topology(const NodeTopologySource& source) {
  const auto discover_now = [&source] {
    DiscoveryOptions options;
    options.fsroot = source.fsroot;
    options.neuron_ls = neuron_ls_output(source);
    return discover(options);
  };
  if (!source.cache_file) {
    CachedDiscovery out;
    out.topology = discover_now();
    return out;
  }
  return cached_or_discovered(*source.cache_file, source.fsroot, discover_now, source.write_cache);
}

}  // namespace trn::topology
