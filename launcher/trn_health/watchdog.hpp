#pragma once

#include <chrono>

namespace trn::health_tool {

// Ends the process with kTimedOut once `limit` has passed, whatever it is doing: Slurm kills a
// HealthCheckProgram after 60 s, and a check blocked where no timeout reaches (a hung file
// system, a library call) must not make trn-health the process Slurm kills.
void start_watchdog(std::chrono::seconds limit);

}  // namespace trn::health_tool
