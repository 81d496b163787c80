#pragma once

#include <string>

#include "trn/run/launch_environment.hpp"
#include "trn/taskenv/step_facts.hpp"

namespace trn::run {

// The step as spank_trn would see it under srun, for a node whose trn-run starts its workers
// itself (docs/launchers.md#own-workers): `tasks_per_node` tasks on each of the launcher's
// nodes, this node at its rank, rank 0 on the main node. The same core/taskenv code then gives
// every task the environment a Slurm task gets. Job and step id are 0: the rendezvous ports
// are the same on every node without any communication (a user's MASTER_PORT still wins).
taskenv::StepFacts launch_step_facts(const LaunchEnvironment& launch, unsigned tasks_per_node,
                                     const std::string& this_node);

}  // namespace trn::run
