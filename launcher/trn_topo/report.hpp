#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/fabric_providers.hpp"
#include "trn/placement/placement.hpp"
#include "trn/taskenv/task_environment.hpp"
#include "trn/topology/node_topology.hpp"

namespace trn::topo_tool {

struct Report {
  topology::NodeTopology topology;
  std::string topology_note;  // where the topology came from
  placement::StepPlacement placement;
  taskenv::StepEnvironment step_environment;
  std::vector<taskenv::TaskEnvironment> tasks;  // by local task id
  std::optional<health::FabricProviders> fabric;
};

void print_text(std::ostream& out, const Report& report);
void print_json(std::ostream& out, const Report& report);

}  // namespace trn::topo_tool
