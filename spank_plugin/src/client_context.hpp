#pragma once

#include "plugin_config.hpp"
#include "spank_api.hpp"

// srun (local context) and sbatch/salloc (allocator context): options are checked while the
// command line is parsed (a bad value stops the command before anything is launched); here the
// combination is reported at verbose level (srun -v).
namespace trn::spank::client {

void init_post_opt(spank_t handle, const PluginConfig& config);

}  // namespace trn::spank::client
