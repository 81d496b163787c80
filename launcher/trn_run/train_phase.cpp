#include "train_phase.hpp"

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "process.hpp"

namespace trn::launcher {
namespace {

// Follows the log of the node that runs rank 0 and prints rank 0's lines without their label.
class RankZeroFollower {
 public:
  RankZeroFollower(std::filesystem::path log_dir, std::string suffix)
      : log_dir_(std::move(log_dir)), suffix_(std::move(suffix)) {}

  void poll() {
    if (!file_.is_open() && !open()) return;
    file_.clear();
    std::string chunk(std::istreambuf_iterator<char>(file_), {});
    pending_ += chunk;
    std::size_t newline = 0;
    while ((newline = pending_.find('\n')) != std::string::npos) {
      const auto line = pending_.substr(0, newline);
      if (const auto labelled = run::parse_labelled_line(line); labelled && labelled->rank == 0) {
        std::cout << labelled->text << '\n' << std::flush;
      }
      pending_.erase(0, newline + 1);
    }
  }

 private:
  bool open() {
    // The node of rank 0 is the first that srun writes for; its name is in the file name.
    for (const auto& entry : std::filesystem::directory_iterator(log_dir_)) {
      const auto name = entry.path().filename().string();
      if (name.ends_with(suffix_) && contains_rank_zero(entry.path())) {
        file_.open(entry.path());
        return file_.is_open();
      }
    }
    return false;
  }

  static bool contains_rank_zero(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      if (const auto labelled = run::parse_labelled_line(line); labelled && labelled->rank == 0) return true;
    }
    return false;
  }

  std::filesystem::path log_dir_;
  std::string suffix_;
  std::ifstream file_;
  std::string pending_;
};

std::vector<run::RankOutput> read_rank_outputs(const std::filesystem::path& log_dir,
                                               const std::string& prefix, const std::string& suffix) {
  std::vector<run::RankOutput> ranks;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) continue;
    const auto node = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    for (auto& rank : run::split_labelled_output(text.str(), node)) ranks.push_back(std::move(rank));
  }
  return ranks;
}

}  // namespace

TrainOutcome run_train_step(const TrainStep& step) {
  std::filesystem::create_directories(step.log_dir);
  const auto prefix = step.phase + "_";
  const auto suffix = "_" + std::to_string(step.nnodes) + ".log";
  std::vector<std::string> argv = {"srun", "--label", "--kill-on-bad-exit=1",
                                   "--output=" + (step.log_dir / (prefix + "%N" + suffix)).string()};
  argv.insert(argv.end(), step.srun_args.begin(), step.srun_args.end());
  argv.insert(argv.end(), step.command.begin(), step.command.end());

  const int pid = start_process(argv, {.extra_env = step.env});
  RankZeroFollower follower(step.log_dir, suffix);
  TrainOutcome outcome;
  for (;;) {
    outcome.status = wait_process(pid, /*block=*/false);
    follower.poll();
    if (outcome.status >= 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  follower.poll();
  if (outcome.status != 0) {
    outcome.diagnosis = run::diagnose_training_failure(read_rank_outputs(step.log_dir, prefix, suffix),
                                                       step.world_size);
  }
  return outcome;
}

}  // namespace trn::launcher
