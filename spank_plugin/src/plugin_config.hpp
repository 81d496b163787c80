#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "trn/placement/bind_mode.hpp"
#include "trn/taskenv/env_options.hpp"
#include "trn/topology/node_topology_source.hpp"

// The site's choices: the arguments after the plugin's path on its plugstack.conf line, e.g.
//   required /usr/lib/slurm/spank_trn.so cache_root=/fsx/neuron-cache efa=required
namespace trn::spank {

// neuron_ls=auto|off|FILE, as core's node topology source reads it.
using NeuronLsSource = topology::NeuronLsSource;

struct PluginConfig {
  std::filesystem::path fsroot = "/";     // fsroot=: a fixture tree instead of the node
  std::optional<std::string> cache_root;  // cache_root=: the shared compile-cache tier
  std::optional<std::filesystem::path> local_cache =
      std::filesystem::path("/var/tmp/neuron-compile-cache");  // local_cache=DIR|off
  taskenv::EfaMode efa = taskenv::EfaMode::kAuto;              // efa=
  placement::BindMode bind = placement::BindMode::kNuma;       // bind=
  bool default_on = true;                                      // default=on|off
  std::optional<std::filesystem::path> topology_cache =
      std::filesystem::path("/run/trn-slurm");       // topology_cache=DIR|off
  NeuronLsSource neuron_ls = NeuronLsSource::kAuto;  // neuron_ls=auto|off|FILE
  std::filesystem::path neuron_ls_file;
  // alloc_cores=use|ignore: ignore Slurm's S_STEP_ALLOC_CORES, for emulated nodes whose
  // slurm.conf deliberately describes other CPUs than the machine has (local test clusters).
  bool use_alloc_cores = true;

  bool real_root() const { return fsroot == "/"; }
};

// Throws trn::Error naming the argument and the accepted forms.
PluginConfig parse_plugin_config(int argc, const char* const* argv);

}  // namespace trn::spank
