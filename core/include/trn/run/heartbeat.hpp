#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trn::run {

// What a rank's heartbeat line says (trainer/trn_trainer/heartbeat.py writes it; docs/recovery.md).
struct Heartbeat {
  unsigned rank = 0;
  std::string node;
  long pid = 0;
  long step = 0;                    // optimizer steps completed
  std::optional<long> start_step;   // the step it started from (a resumed checkpoint)
  std::string phase;                // start, compute, allreduce, done, checkpoint, exited, failed
  double since = 0;                 // Unix time the phase began
  std::optional<double> compute_s;  // the last step's compute time (to the all-reduce)
  long window = 0;                  // windows of steps completed
  std::optional<double> window_compute_s;  // median compute time over the last window
  std::string error;                       // why it stopped (phase failed)
};

// The heartbeat in `line`; nullopt when it is not one (a line half rewritten, another file).
std::optional<Heartbeat> parse_heartbeat(std::string_view line);

}  // namespace trn::run
