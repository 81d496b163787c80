#pragma once

#include <string>
#include <vector>

#include "install_layout.hpp"
#include "node_facts.hpp"
#include "run_options.hpp"
#include "run_start.hpp"
#include "trn/plan/profile.hpp"

namespace trn::launcher {

// The nodes the plan is made for, in the job's order.
struct RunNodes {
  std::vector<NodeFacts> nodes;
  bool job_nodes = false;  // the facts are the allocated nodes' own (a Slurm job's batch script)
  // spank_trn sets up every task of the job's steps; false: no node has it in plugstack.conf,
  // and each task starts through trn-launcher slurm-task, which sets the same environment.
  bool plugin = true;
  std::string this_node;  // where trn-run starts its own workers: this node's name
  // The tree every later stage reads the nodes from (health gate, recovery, task set-up):
  // --fsroot, else in a job the one spank_trn reads (docs/launchers.md#without-the-plugin).
  std::string fsroot = "/";
};

// Stage 2: the node facts for `start`: the job's nodes (one srun step), this node for every node
// of a launcher that starts one trn-run per node or for a compile agent, else nodes of the
// planned instance type (--instance-type, the partition's, the profile's) or like this one.
// Nodes that differ, or a job whose nodes lack spank_trn, throw trn::Error.
RunNodes gather_run_nodes(const RunOptions& options, const RunStart& start,
                          const plan::Profile& profile, const InstallLayout& layout);

}  // namespace trn::launcher
