#pragma once

#include <string>

#include "plugin_config.hpp"
#include "spank_api.hpp"

// slurmstepd (remote context): the node's topology and the step's placement are worked out once
// in init_post_opt, while slurmstepd is still root; every task then only looks its entry up.
namespace trn::spank::remote {

// Never throws: a failure to set the step up is logged (slurmd's log) and kept; task_init then
// fails every task with it, so the message reaches the user's terminal.
void init_post_opt(spank_t handle, const PluginConfig& config);
// Fails the step from task_init with `why` (init_post_opt then sets nothing up).
void fail_step(const std::string& why);
void task_init_privileged(spank_t handle);
void task_init(spank_t handle);
void reset();

}  // namespace trn::spank::remote
