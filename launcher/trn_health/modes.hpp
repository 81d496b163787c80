#pragma once

#include "options.hpp"
#include "trn/health/check_result.hpp"

namespace trn::health_tool {

// --step: the reach check across the step's nodes, added to `health`.
void add_reach_check(const Options& options, health::NodeHealth& health);

// --slurm: drains the node when unhealthy, resumes it when healthy and drained by trn-health;
// prints what it did. Returns the exit status.
int act_as_health_check_program(const Options& options, const health::NodeHealth& health);

}  // namespace trn::health_tool
