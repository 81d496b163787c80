#include "trn/run/watchdog.hpp"

#include <algorithm>
#include <utility>

namespace trn::run {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

void Watchdog::observe(const std::vector<Heartbeat>& beats, double now) {
  for (const auto& beat : beats) {
    latest_[beat.rank] = beat;
    if (!beat.node.empty()) nodes_.insert(beat.node);
    if (beat.window > 0 && beat.window_compute_s) {
      // A node is as slow as its slowest rank: the others wait for it at the all-reduce.
      auto& value = windows_[beat.window][beat.node];
      value = std::max(value, *beat.window_compute_s);
      auto& seen = latest_window_[beat.node];
      seen = std::max(seen, beat.window);
    }
  }
  long lowest = -1;
  for (const auto& [rank, beat] : latest_)
    lowest = lowest < 0 ? beat.step : std::min(lowest, beat.step);
  if (lowest > min_step_) {
    if (min_step_ >= 1 && last_progress_ > 0)
      step_seconds_.push_back((now - last_progress_) / static_cast<double>(lowest - min_step_));
    min_step_ = lowest;
    last_progress_ = now;
  } else if (last_progress_ == 0) {
    last_progress_ = now;
  }
  // A write the step waited for has ended: the hang deadline counts from its end (the write's
  // time is neither a stall nor a step's time).
  const bool writing = std::any_of(latest_.begin(), latest_.end(), [](const auto& entry) {
    return entry.second.phase == "checkpoint";
  });
  if (writing_ && !writing) last_progress_ = std::max(last_progress_, now);
  writing_ = writing;
  judge_windows();
}

double Watchdog::median_step_s() const { return median(step_seconds_); }

WatchVerdict Watchdog::verdict(double now) const {
  WatchVerdict verdict;
  for (const auto& [rank, beat] : latest_) {
    if (beat.phase != "failed") continue;
    if (verdict.failed_ranks.empty()) verdict.first_error = beat.error;
    verdict.failed_ranks.push_back(rank);
  }
  if (!verdict.failed_ranks.empty()) {
    verdict.event = WatchEvent::kFailed;
    return verdict;
  }
  if (!started_up()) return startup_verdict(now);
  // Armed once every rank completed a step: the first one includes start-up and compilation.
  if (min_step_ < 1) return verdict;
  const bool all_ended = std::all_of(latest_.begin(), latest_.end(), [](const auto& entry) {
    return entry.second.phase == "exited";
  });
  verdict.deadline_s = std::max(settings_.hang_floor_s, settings_.hang_factor * median_step_s());
  // A save the step waits for (a synchronous write, the previous one still in flight) and the
  // run's last ones take as long as the file system needs: slow storage is not a hang.
  const bool writing = std::any_of(latest_.begin(), latest_.end(), [](const auto& entry) {
    return entry.second.phase == "checkpoint";
  });
  if (writing || (settings_.last_step > 0 && min_step_ >= settings_.last_step))
    verdict.deadline_s = std::max(verdict.deadline_s, settings_.finish_floor_s);
  verdict.stalled_s = now - last_progress_;
  if (all_ended || verdict.stalled_s <= verdict.deadline_s) return verdict;
  verdict.event = WatchEvent::kHang;
  verdict.stuck_step = min_step_;
  const bool some_ahead = std::any_of(latest_.begin(), latest_.end(), [&](const auto& entry) {
    return entry.second.step > min_step_;
  });
  const bool some_waiting = std::any_of(latest_.begin(), latest_.end(), [&](const auto& entry) {
    return entry.second.step == min_step_ && entry.second.phase == "allreduce";
  });
  for (const auto& [rank, beat] : latest_) {
    if (beat.step != min_step_) continue;
    // Behind ranks that finished the next step, or outside the all-reduce the others wait in.
    if (some_ahead || (some_waiting && beat.phase != "allreduce")) {
      verdict.stuck_ranks.push_back(rank);
      if (std::find(verdict.stuck_nodes.begin(), verdict.stuck_nodes.end(), beat.node) ==
          verdict.stuck_nodes.end())
        verdict.stuck_nodes.push_back(beat.node);
    }
  }
  return verdict;
}

std::optional<long> Watchdog::start_step() const {
  if (latest_.empty() || latest_.size() < settings_.ranks) return std::nullopt;
  std::optional<long> lowest;
  for (const auto& [rank, beat] : latest_) {
    if (!beat.start_step) return std::nullopt;
    lowest = lowest ? std::min(*lowest, *beat.start_step) : *beat.start_step;
  }
  return lowest;
}

bool Watchdog::started_up() const {
  if (latest_.empty() || latest_.size() < settings_.ranks) return false;
  return std::none_of(latest_.begin(), latest_.end(),
                      [](const auto& entry) { return entry.second.phase == "start"; });
}

WatchVerdict Watchdog::startup_verdict(double now) const {
  WatchVerdict verdict;
  if (settings_.startup_limit_s <= 0 || now <= settings_.startup_limit_s) return verdict;
  verdict.event = WatchEvent::kHang;
  verdict.in_startup = true;
  verdict.stalled_s = now;
  verdict.deadline_s = settings_.startup_limit_s;
  for (unsigned rank = 0; rank < settings_.ranks; ++rank) {
    if (!latest_.contains(rank)) verdict.stuck_ranks.push_back(rank);
  }
  return verdict;
}

void Watchdog::judge_windows() {
  // A window is judged once every node has reported it or a later one; a window some node's
  // report was not read for (its ranks moved on between two reads) is passed over.
  long ready = -1;
  for (const auto& node : nodes_) {
    const auto it = latest_window_.find(node);
    const long seen = it == latest_window_.end() ? 0 : it->second;
    ready = ready < 0 ? seen : std::min(ready, seen);
  }
  if (nodes_.size() < 2) return;
  for (auto it = windows_.upper_bound(judged_window_); it != windows_.end() && it->first <= ready;
       ++it) {
    const auto& [window, by_node] = *it;
    judged_window_ = window;
    if (by_node.size() < nodes_.size()) continue;
    std::vector<double> values;
    values.reserve(by_node.size());
    for (const auto& [node, seconds] : by_node) values.push_back(seconds);
    const double typical = median(values);
    for (const auto& [node, seconds] : by_node) {
      const bool slow = typical > 0 && seconds > settings_.straggler_ratio * typical;
      above_[node] = slow ? above_[node] + 1 : 0;
      if (slow && above_[node] >= settings_.straggler_windows && named_.insert(node).second)
        fresh_.push_back({node, seconds / typical, window});
    }
  }
}

std::vector<Straggler> Watchdog::take_new_stragglers() { return std::exchange(fresh_, {}); }

}  // namespace trn::run
