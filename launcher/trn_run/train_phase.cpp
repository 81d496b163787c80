#include "train_phase.hpp"

#include <fcntl.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <thread>

#include "trn/common/error.hpp"
#include "trn/common/process.hpp"
#include "trn/common/text_file.hpp"
#include "trn/common/unique_fd.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/run/allocation_fit.hpp"
#include "trn/run/heartbeat.hpp"
#include "trn/run/run_continuation.hpp"
#include "trn/run/run_directory_space.hpp"

namespace trn::launcher {
namespace {

// The text appended to a file since the last call; "" while the file does not exist yet (srun
// creates the logs when the step starts).
class FileTail {
 public:
  explicit FileTail(std::filesystem::path path) : path_(std::move(path)) {}

  std::string take_new() {
    if (!file_.is_open()) {
      file_.open(path_);
      if (!file_.is_open()) return "";
    }
    file_.clear();
    return {std::istreambuf_iterator<char>(file_), {}};
  }

 private:
  std::filesystem::path path_;
  std::ifstream file_;
};

// Follows the log of the node that runs task `rank` and prints its lines without their label.
class RankFollower {
 public:
  RankFollower(std::filesystem::path log, unsigned rank) : tail_(std::move(log)), rank_(rank) {}

  void poll() {
    pending_ += tail_.take_new();
    std::size_t newline = 0;
    while ((newline = pending_.find('\n')) != std::string::npos) {
      const auto line = pending_.substr(0, newline);
      if (const auto labelled = run::parse_labelled_line(line);
          labelled && labelled->rank == rank_) {
        std::cout << labelled->text << '\n' << std::flush;
      }
      pending_.erase(0, newline + 1);
    }
  }

 private:
  FileTail tail_;
  unsigned rank_;
  std::string pending_;
};

// srun's own messages (its stderr, kept in a file beside the logs): passed on to our stderr as
// they come, and kept to tell a step Slurm refused from a failed one.
class StarterMessages {
 public:
  explicit StarterMessages(std::filesystem::path path) : tail_(std::move(path)) {}

  void poll() {
    const auto fresh = tail_.take_new();
    if (fresh.empty()) return;
    std::cerr << fresh << std::flush;
    if (text_.size() < kKept) text_.append(fresh, 0, kKept - text_.size());
  }

  const std::string& text() const { return text_; }

 private:
  static constexpr std::size_t kKept = 64 << 10;  // srun says why it refused in its first lines
  FileTail tail_;
  std::string text_;
};

std::vector<run::RankOutput> read_rank_outputs(const std::filesystem::path& log_dir,
                                               const std::string& prefix,
                                               const std::string& suffix) {
  std::vector<run::RankOutput> ranks;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) continue;
    const auto node = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    const auto text = read_text(entry.path(), "it is one node's training log");
    for (auto& rank : run::split_labelled_output(text, node)) ranks.push_back(std::move(rank));
  }
  return ranks;
}

// A restart or a requeued job writes the same log names as the attempt before it. Those logs
// are renamed first (kept, for the record): the follower would otherwise open the old file
// before srun truncates it and replay the killed attempt's lines, and the failure diagnosis
// would read them as this attempt's.
void set_earlier_logs_aside(const std::filesystem::path& log_dir,
                            const std::function<bool(const std::string&)>& ours) {
  const auto aside =
      ".before-" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir, error)) {
    const auto name = entry.path().filename().string();
    if (ours(name)) std::filesystem::rename(entry.path(), log_dir / (name + aside), error);
  }
}

std::vector<run::Heartbeat> read_heartbeats(const std::filesystem::path& dir) {
  std::vector<run::Heartbeat> beats;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() != ".beat") continue;
    std::ifstream file(entry.path());
    std::string line;
    if (std::getline(file, line)) {
      if (auto beat = run::parse_heartbeat(line)) beats.push_back(std::move(*beat));
    }
  }
  return beats;
}

// The first line of `text` holding `needle`, else its first line.
std::string first_line_with(const std::string& text, std::string_view needle) {
  auto at = text.find(needle);
  at = at == std::string::npos ? 0 : text.rfind('\n', at) + 1;  // npos + 1 is 0
  return text.substr(at, text.find('\n', at) - at);
}

bool wait_for_exit(int pid, std::chrono::milliseconds limit, int& status) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while ((status = wait_process(pid, /*block=*/false)) < 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// SIGINT twice within a second makes srun ask Slurm to kill every task of the step at once
// ("forcing job termination"); a srun still waiting for a lost node's answer after `grace` is
// killed - Slurm cleans the step up when it marks the node down.
int stop_srun(int pid, std::chrono::milliseconds grace) {
  ::kill(pid, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(pid, SIGINT);
  int status = -1;
  if (!wait_for_exit(pid, grace, status)) {
    ::kill(pid, SIGKILL);
    status = wait_process(pid);
  }
  return status;
}

}  // namespace

TrainOutcome run_train_step(const TrainStep& step) {
  std::filesystem::create_directories(step.log_dir);
  if (!step.watch_dir.empty()) {
    std::filesystem::remove_all(step.watch_dir);
    std::filesystem::create_directories(step.watch_dir);
  }
  const auto prefix = step.phase + "_";
  const auto suffix = "_" + std::to_string(step.nnodes) + ".log";
  set_earlier_logs_aside(step.log_dir, [&](const std::string& name) {
    return step.log_dir_shared ? name == prefix + step.first_node + suffix
                               : name.starts_with(prefix) && name.ends_with(suffix);
  });
  auto argv = step.starter;
  argv.insert(argv.end(), {"--label", "--kill-on-bad-exit=1",
                           "--output=" + (step.log_dir / (prefix + "%N" + suffix)).string()});
  argv.insert(argv.end(), step.srun_args.begin(), step.srun_args.end());
  argv.insert(argv.end(), step.command.begin(), step.command.end());

  const auto starter_log = step.log_dir / (step.phase + "_srun.err");
  UniqueFd starter_fd(::open(starter_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!starter_fd.valid())
    throw Error("cannot create " + starter_log.string() + ": " + std::strerror(errno));
  const auto started = std::chrono::steady_clock::now();
  TrainOutcome outcome;
  outcome.started_unix =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const int pid = start_process(argv, {.extra_env = step.env, .output_fd = starter_fd.get()});
  starter_fd.close();
  StarterMessages starter(starter_log);
  RankFollower follower(step.log_dir / (prefix + step.first_node + suffix), step.echo_rank);
  run::Watchdog watchdog(step.watchdog);
  std::optional<long> stop_after;  // a straggler to replace: stop after this step's checkpoint
  auto next_look = started;
  for (;;) {
    outcome.status = wait_process(pid, /*block=*/false);
    follower.poll();
    starter.poll();
    if (outcome.status >= 0) break;
    const auto now = std::chrono::steady_clock::now();
    if (!step.watch_dir.empty() && now >= next_look) {
      next_look = now + std::chrono::seconds(1);
      const double elapsed = std::chrono::duration<double>(now - started).count();
      const auto beats = read_heartbeats(step.watch_dir);
      watchdog.observe(beats, elapsed);
      // Where the ranks start from (a resumed run's checkpoint), once every one is past its
      // start-up: as the ranks say, else (a trainer without start_step) the steps done then.
      if (outcome.first_step < 0 && watchdog.started_up())
        outcome.first_step = watchdog.start_step().value_or(watchdog.steps_done());
      outcome.last_step = watchdog.steps_done();
      if (outcome.first_step >= 0 && !outcome.first_step_done_s &&
          outcome.last_step > outcome.first_step) {
        outcome.first_step_done_s = elapsed;
      }
      for (auto& straggler : watchdog.take_new_stragglers()) {
        std::cout << "trn-run: straggler: " << straggler.node << " computes " << straggler.ratio
                  << "x the median node's time (window " << straggler.window << ")\n"
                  << std::flush;
        if (!stop_after && step.replace_straggler && step.replace_straggler(straggler)) {
          stop_after = watchdog.steps_done();
          outcome.straggler_replaced = straggler.node;
          std::cout << "trn-run: replacing " << straggler.node
                    << " with a spare at the next checkpoint\n"
                    << std::flush;
        }
        outcome.stragglers.push_back(std::move(straggler));
      }
      const auto verdict = watchdog.verdict(elapsed);
      if (verdict.event != run::WatchEvent::kNone) {
        outcome.verdict = verdict;
        outcome.detected_s = elapsed;
        outcome.detected_unix =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        for (const auto& beat : beats) {
          if (beat.phase != "failed")
            outcome.last_beat_unix = std::max(outcome.last_beat_unix, beat.since);
        }
      }
      if (verdict.event == run::WatchEvent::kFailed) {
        outcome.stopped = StopReason::kFailedRank;
        std::cout << "trn-run: rank " << verdict.failed_ranks.front() << " failed ("
                  << verdict.first_error << "); stopping the step\n"
                  << std::flush;
        // srun ends the step itself (--kill-on-bad-exit) unless it waits for a lost node.
        if (!wait_for_exit(pid, std::chrono::seconds(1), outcome.status))
          outcome.status = stop_srun(pid, std::chrono::seconds(1));
        break;
      }
      if (verdict.event == run::WatchEvent::kHang) {
        outcome.stopped = StopReason::kHang;
        if (verdict.in_startup) {
          std::cout << "trn-run: the restarted step's ranks were not all started after "
                    << static_cast<long>(verdict.stalled_s) << " s (limit "
                    << static_cast<long>(verdict.deadline_s) << " s)";
        } else {
          std::cout << "trn-run: no step completed for " << static_cast<long>(verdict.stalled_s)
                    << " s (deadline " << static_cast<long>(verdict.deadline_s) << " s) after step "
                    << verdict.stuck_step;
        }
        std::cout << "; writing every rank's stack to " << step.watch_dir.string() << "\n"
                  << std::flush;
        ::kill(pid, SIGUSR1);  // srun passes it to every task: faulthandler writes the stacks
        std::this_thread::sleep_for(std::chrono::seconds(2));
        outcome.status = stop_srun(pid, std::chrono::seconds(1));
        break;
      }
      if (stop_after && run::newest_checkpoint(step.run_dir) > *stop_after) {
        outcome.stopped = StopReason::kStraggler;
        outcome.status = stop_srun(pid, std::chrono::seconds(1));
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  follower.poll();
  starter.poll();
  // A full run directory first: its ranks' output, written there, may be lost with it.
  const auto full = outcome.status != 0 && outcome.stopped != StopReason::kStraggler
                        ? run::run_directory_full(step.run_dir)
                        : std::string();
  if (!full.empty()) {
    outcome.diagnosis.kind = run::FailureKind::kRunDirectoryFull;
    outcome.diagnosis.summary = full;
  } else if (outcome.status != 0 && outcome.stopped == StopReason::kNone &&
             run::slurm_refused_step(starter.text())) {
    outcome.diagnosis.kind = run::FailureKind::kStepRefused;
    outcome.diagnosis.summary = first_line_with(starter.text(), "Unable to create step");
  } else if (outcome.status != 0 && outcome.stopped != StopReason::kStraggler) {
    outcome.diagnosis =
        run::diagnose_training_failure(read_rank_outputs(step.log_dir, prefix, suffix), step.tasks);
  }
  return outcome;
}

}  // namespace trn::launcher
