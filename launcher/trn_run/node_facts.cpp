#include "node_facts.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <sstream>

#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/node_name.hpp"
#include "trn/common/process.hpp"
#include "trn/placement/placement.hpp"
#include "trn/topology/discover.hpp"

namespace trn::launcher {

NodeFacts local_node_facts(const std::filesystem::path& fsroot) {
  NodeFacts facts;
  facts.node = this_node_name();  // the Slurm node name: what steps and drains use
  topology::DiscoveryOptions discovery;
  discovery.fsroot = expand_node_name(fsroot.string(), this_node_name());  // %n: one tree per node
  const auto topology = topology::discover(discovery);
  facts.instance_type = topology.instance_type;
  facts.neuron_devices = static_cast<std::int64_t>(topology.devices.size());
  facts.cpus = static_cast<std::int64_t>(topology.cpus.size());
  facts.plugin_active = env_value(trn::env::kTrnInstanceType).has_value();
  if (const auto node_id = env_value("SLURM_NODEID")) facts.node_id = std::atoll(node_id->c_str());
  facts.cache_shared = env_value(trn::env::kTrnCacheShared).value_or("");
  facts.fsroot = fsroot.string();
  if (!topology.devices.empty()) {
    placement::PlacementRequest request;
    request.lnc_env = env_value(trn::env::kNeuronLogicalNcConfig);
    const auto whole_node = placement::place_step(topology, request);
    if (whole_node.has_neuron_cores()) {
      facts.neuron_cores = static_cast<std::int64_t>(whole_node.tasks.front().neuron_cores.size());
    }
  }
  return facts;
}

nlohmann::json to_json(const NodeFacts& facts) {
  return {{"node", facts.node},
          {"node_id", facts.node_id},
          {"instance_type", facts.instance_type},
          {"neuron_devices", facts.neuron_devices},
          {"neuron_cores", facts.neuron_cores},
          {"cpus", facts.cpus},
          {"plugin_active", facts.plugin_active},
          {"cache_shared", facts.cache_shared},
          {"fsroot", facts.fsroot}};
}

NodeFacts node_facts_from_json(const nlohmann::json& json) {
  return {
      json.at("node").get<std::string>(),          json.at("node_id").get<std::int64_t>(),
      json.at("instance_type").get<std::string>(), json.at("neuron_devices").get<std::int64_t>(),
      json.at("neuron_cores").get<std::int64_t>(), json.at("cpus").get<std::int64_t>(),
      json.at("plugin_active").get<bool>(),        json.at("cache_shared").get<std::string>(),
      json.at("fsroot").get<std::string>()};
}

std::vector<NodeFacts> gather_node_facts(const std::filesystem::path& launcher, unsigned nnodes,
                                         const std::optional<std::string>& fsroot) {
  const auto nodes = std::to_string(nnodes);
  std::vector<std::string> argv = {"srun",
                                   "--nodes=" + nodes,
                                   "--ntasks=" + nodes,
                                   "--ntasks-per-node=1",
                                   launcher.string(),
                                   "node-facts"};
  if (fsroot) argv.insert(argv.end(), {"--fsroot", *fsroot});
  const auto result = capture_process(argv);
  if (result.status != 0) {
    throw Error("could not read the nodes' topology (srun " + launcher.filename().string() +
                " node-facts exited " + std::to_string(result.status) +
                "): see the messages above");
  }
  std::vector<NodeFacts> facts;
  std::istringstream lines(result.output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    try {
      facts.push_back(node_facts_from_json(nlohmann::json::parse(line)));
    } catch (const nlohmann::json::exception& error) {
      throw Error("unexpected node-facts output '" + line + "': " + error.what());
    }
  }
  if (facts.size() != nnodes) {
    throw Error("expected topology from " + nodes + " nodes, got " + std::to_string(facts.size()));
  }
  std::sort(facts.begin(), facts.end(),
            [](const NodeFacts& a, const NodeFacts& b) { return a.node_id < b.node_id; });
  return facts;
}

void check_uniform(const std::vector<NodeFacts>& nodes) {
  std::map<std::string, std::vector<std::string>> by_shape;
  for (const auto& node : nodes) {
    const auto shape =
        (node.instance_type.empty() ? std::string("unknown instance") : node.instance_type) +
        " with " + std::to_string(node.neuron_cores) + " NeuronCores";
    by_shape[shape].push_back(node.node);
  }
  if (by_shape.size() <= 1) return;
  std::string message = "the job's nodes differ: ";
  for (const auto& [shape, names] : by_shape) {
    message += std::to_string(names.size()) + " x " + shape + " (";
    for (std::size_t i = 0; i < names.size() && i < 4; ++i) message += (i ? ", " : "") + names[i];
    message += names.size() > 4 ? ", ...); " : "); ";
  }
  message += "submit to a partition of one instance type (e.g. sbatch --partition or --constraint)";
  throw Error(message);
}

bool plugin_on_every_node(const std::vector<NodeFacts>& nodes) {
  std::string missing;
  std::size_t without = 0;
  for (const auto& node : nodes) {
    if (node.plugin_active) continue;
    missing += (missing.empty() ? "" : ", ") + node.node;
    ++without;
  }
  if (without == 0) return true;
  if (without == nodes.size()) return false;
  throw Error("the spank_trn plugin ran on some of the job's nodes but not on " + missing +
              ": give every node the same plugstack.conf (`required <plugin dir>/spank_trn.so`, "
              "see spank_trn(8)) and restart slurmd there, or exclude those nodes (sbatch "
              "--exclude)");
}

std::vector<std::string> node_names(const std::vector<NodeFacts>& nodes) {
  std::vector<std::string> names;
  names.reserve(nodes.size());
  for (const auto& node : nodes) names.push_back(node.node);
  return names;
}

}  // namespace trn::launcher
