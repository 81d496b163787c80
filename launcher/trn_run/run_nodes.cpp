#include "run_nodes.hpp"

#include <iostream>
#include <optional>

#include "planned_instance.hpp"

namespace trn::launcher {

RunNodes gather_run_nodes(const RunOptions& options, const RunStart& start,
                          const plan::Profile& profile, const InstallLayout& layout) {
  RunNodes seen;
  seen.fsroot = options.fsroot;
  auto& nodes = seen.nodes;
  const auto& allocation = start.allocation;
  const auto& launch = start.launch;
  switch (start.kind) {
    case StartKind::kOwnWorkers: {
      // One trn-run per node, each planning alike from its own (uniform) node.
      const auto here = local_node_facts(options.fsroot);
      seen.this_node = here.node;
      nodes.assign(launch.nodes, here);
      for (unsigned i = 0; i < launch.nodes; ++i) {
        if (i == launch.node_rank) continue;
        nodes[i].node = i < launch.hosts.size()               ? launch.hosts[i]
                        : i == 0 && !launch.main_host.empty() ? launch.main_host
                                                              : "node-" + std::to_string(i);
      }
      break;
    }
    case StartKind::kCompileAgent:
      // One agent per node: every node plans alike from its own (uniform) topology.
      nodes.assign(allocation->nnodes, local_node_facts(options.fsroot));
      break;
    case StartKind::kSlurmJob:
      nodes =
          gather_node_facts(layout.bin_dir / "trn-launcher", allocation->nnodes,
                            options.fsroot_given ? std::optional(options.fsroot) : std::nullopt);
      seen.plugin = plugin_on_every_node(nodes);
      seen.fsroot = nodes.front().fsroot;
      seen.job_nodes = true;
      break;
    case StartKind::kPlanAway:
    case StartKind::kMpiLauncher: {  // never here: run_command hands it to mpirun first
      // --nodes, or one node for a sweep (which plans each of its counts itself).
      const unsigned planned_count = options.nodes.value_or(1);
      if (const auto instance =
              planned_instance(options.instance_type,
                               allocation && !allocation->partition.empty()
                                   ? std::optional<std::string>(allocation->partition)
                                   : std::nullopt,
                               profile.instance_type, profile.env)) {
        // No allocation shows the compute nodes: this node (a head node, say) is not one of them.
        std::cerr << "trn-run: planning for " << instance->type << " nodes (" << instance->source
                  << ")\n";
        nodes = planned_nodes(*instance, planned_count);
      } else {
        const auto local = local_node_facts(options.fsroot);
        for (unsigned i = 0; i < planned_count; ++i) nodes.push_back(local);
        for (auto& node : nodes) node.node.clear();
      }
      break;
    }
  }
  check_uniform(nodes);
  if (seen.job_nodes)
    report_instance_mismatch(options.instance_type, profile.instance_type, profile.env,
                             nodes.front());
  return seen;
}

}  // namespace trn::launcher
