#pragma once

#include "plugin_config.hpp"
#include "spank_api.hpp"

// slurmd's job prolog (root, a separate process per job; only S_JOB_UID, S_JOB_GID and S_JOB_ID
// exist): creates the job user's node-local compile-cache directory.
namespace trn::spank::prolog {

// A refused or failed directory is logged (slurmd log) and is not a prolog failure: a failing
// prolog of a required plugin drains the node, which would let any user who plants a symlink
// take nodes out of service. The step checks the directory again and goes on without it.
void job_prolog(spank_t handle, const PluginConfig& config);

}  // namespace trn::spank::prolog
