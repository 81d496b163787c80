#pragma once

#include "options.hpp"
#include "trn/health/check_result.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health_tool {

// --step: the node's checks and, beside them, the reach check across the step's nodes. Throws
// trn::Error outside a step of one task per node.
health::NodeCheckRun check_node_in_step(const Options& options);

// --slurm: drains the node when unhealthy, resumes it when healthy and drained by trn-health;
// prints what it did. Returns the exit status.
int act_as_health_check_program(const Options& options, const health::NodeHealth& health);

}  // namespace trn::health_tool
