#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trn/placement/placement.hpp"
#include "trn/taskenv/env_options.hpp"
#include "trn/taskenv/step_facts.hpp"
#include "trn/topology/node_topology_source.hpp"

namespace trn::topo_tool {

struct Options {
  // Root, neuron-ls source and the topology cache read (never written) when valid.
  topology::NodeTopologySource source;
  placement::PlacementRequest request;
  taskenv::StepFacts facts;
  taskenv::EnvOptions env;
  bool json = false;
  bool fabric = true;
  bool help = false;
  std::string help_text;
};

// Throws trn::Error (or a Boost.Program_options error) for bad input.
Options parse_options(int argc, char** argv);

}  // namespace trn::topo_tool
