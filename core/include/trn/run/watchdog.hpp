#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trn/run/heartbeat.hpp"

namespace trn::run {

// When trn-run's watchdog calls a training step hung, or a node a straggler (docs/recovery.md).
struct WatchdogSettings {
  double hang_floor_s = 60;  // no hang is declared sooner than this after the last progress
  double hang_factor = 5;    // ... nor sooner than this many median step times
  double straggler_ratio = 1.15;
  unsigned straggler_windows = 3;  // consecutive windows above the ratio make a straggler
  // A restarted step: every one of `ranks` must be past its start-up (a heartbeat whose phase is
  // no longer "start") within this many seconds of the step's start, else it is hung - a rank
  // waiting for a peer that never came (a spare lost as it started). 0: no limit (the first
  // start may compile for as long as it takes).
  double startup_limit_s = 0;
  unsigned ranks = 0;
  // The run's last step (0: unknown). Once every rank completed it, rank 0 writes the final
  // checkpoint (never skipped: it waits for the one in flight), results.json and the plot while
  // the other ranks have exited: no step progress for a while, and no hang before
  // finish_floor_s either. The same floor holds while any rank writes a checkpoint its step
  // waits for (heartbeat phase "checkpoint"): a slow file system is not a hang.
  long last_step = 0;
  double finish_floor_s = 600;
};

enum class WatchEvent { kNone, kFailed, kHang };

struct WatchVerdict {
  WatchEvent event = WatchEvent::kNone;
  // kFailed: the ranks that stopped with an error, and the first error.
  std::vector<unsigned> failed_ranks;
  std::string first_error;
  // kHang: the step no rank got past, how long nothing moved, and who is stuck: the ranks that
  // never reached the all-reduce the others wait in (none named when every rank stopped alike);
  // in a start-up past its limit, the ranks never heard from (their nodes are not known).
  long stuck_step = 0;
  double stalled_s = 0;
  double deadline_s = 0;
  std::vector<unsigned> stuck_ranks;
  std::vector<std::string> stuck_nodes;
  bool in_startup = false;
};

struct Straggler {
  std::string node;
  double ratio = 0;  // its compute time over the median node's, in the window that named it
  long window = 0;
};

class Watchdog {
 public:
  explicit Watchdog(WatchdogSettings settings) : settings_(settings) {}

  // The heartbeats read at `now` (seconds on a steady clock).
  void observe(const std::vector<Heartbeat>& beats, double now);
  WatchVerdict verdict(double now) const;
  // Nodes that became stragglers since the last call (each is named once).
  std::vector<Straggler> take_new_stragglers();
  double median_step_s() const;
  long steps_done() const { return min_step_; }
  // Every rank (settings' `ranks`, when given) has a heartbeat past "start".
  bool started_up() const;
  // The step the ranks started from (a resumed run's checkpoint), as the ranks themselves say
  // (start_step); nullopt until every rank has said it. steps_done() at start-up is no
  // substitute: a step may complete between two reads of the heartbeats.
  std::optional<long> start_step() const;

 private:
  void judge_windows();
  WatchVerdict startup_verdict(double now) const;

  WatchdogSettings settings_;
  std::map<unsigned, Heartbeat> latest_;
  long min_step_ = -1;
  double last_progress_ = 0;  // the newest step completed, or the end of a checkpoint write
  bool writing_ = false;      // some rank's latest heartbeat said "checkpoint"
  std::vector<double> step_seconds_;
  std::map<long, std::map<std::string, double>> windows_;  // window -> node -> compute seconds
  std::set<std::string> nodes_;
  std::map<std::string, long> latest_window_;  // the newest window each node reported
  long judged_window_ = 0;
  std::map<std::string, unsigned> above_;  // consecutive windows above the ratio
  std::set<std::string> named_;
  std::vector<Straggler> fresh_;
};

}  // namespace trn::run
