#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spank_api.hpp"
#include "trn/placement/bind_mode.hpp"
#include "trn/taskenv/env_options.hpp"

// The options users give srun, sbatch and salloc (registered with spank_option_register in
// every context; Slurm forwards them to slurmstepd and, from sbatch/salloc, to the job's sruns).
namespace trn::spank {

enum class OptionId {
  kCoresPerTask,  // --neuron-cores-per-task=K
  kBind,          // --neuron-bind=numa|cores|none
  kEfa,           // --neuron-efa=auto|required|off
  kCache,         // --neuron-cache=PATH|off
  kLnc,           // --neuron-lnc=1|2
  kTrn,           // --neuron-trn=on|off
  kEnv,           // --neuron-env=keep|override
  kLaunch,        // --neuron-launch=auto|per-core|torchrun
};

struct UserOptions {
  std::optional<unsigned> cores_per_task;
  std::optional<placement::BindMode> bind;
  std::optional<taskenv::EfaMode> efa;
  std::optional<std::string> cache;  // a directory or s3:// URL; "" = off
  std::optional<unsigned> lnc;
  std::optional<bool> trn;
  bool override_env = false;
  std::optional<taskenv::NeuronLaunch> launch;
  // Invalid values seen in slurmstepd, where Slurm ignores a failing option callback: they
  // fail the step in init_post_opt instead.
  std::vector<std::string> errors;

  bool any_given() const;
};

// The process's options (one plugin instance per process).
UserOptions& user_options();
void reset_user_options();

// Parses one option's value into `options`; throws trn::Error naming the option and the fix.
void apply_option(UserOptions& options, OptionId id, std::string_view value);

// Registers every option with the host; throws trn::Error when Slurm refuses one.
void register_user_options(spank_t handle);

}  // namespace trn::spank
