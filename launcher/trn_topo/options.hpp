#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trn/placement/placement.hpp"
#include "trn/taskenv/env_options.hpp"
#include "trn/taskenv/step_facts.hpp"
#include "trn/topology/discover.hpp"

namespace trn::topo_tool {

struct Options {
  topology::DiscoveryOptions discovery;
  bool run_neuron_ls = false;             // capture `neuron-ls -j` when discovering "/"
  std::optional<std::string> cache_file;  // read a topology cache instead when it is valid
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
