#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "trn/taskenv/neuron_launch.hpp"

namespace trn::taskenv {

// EFA use: auto = where EFA devices exist; required = fail the step on a node without one;
// off = never set the libfabric variables.
enum class EfaMode { kAuto, kRequired, kOff };

EfaMode parse_efa_mode(std::string_view text, std::string_view what);
std::string_view to_string(EfaMode mode);

// Site and user choices that shape the environment (plugstack arguments, srun options).
struct EnvOptions {
  EfaMode efa = EfaMode::kAuto;
  // NEURON_COMPILE_CACHE_URL to set: a directory or s3:// URL; none: leave it to the runtime.
  std::optional<std::string> compile_cache;
  std::optional<std::string>
      shared_cache;  // the shared compile-cache tier, for trn-run (TRN_CACHE_SHARED)
  // Replace variables the user already set (by default the user's value wins).
  bool override_user = false;
  // Resolved (never kAuto): per-core gets the NEURON_PJRT_* world from spank_trn.
  NeuronLaunch launch = NeuronLaunch::kPerCore;
  bool cores_per_task_fixed = false;  // --neuron-cores-per-task given
  // TRN_FSROOT to set: a recorded tree the tasks are set up from (spank_trn's fsroot=, with its
  // %n); none for the node's own root.
  std::optional<std::string> fsroot;
};

}  // namespace trn::taskenv
