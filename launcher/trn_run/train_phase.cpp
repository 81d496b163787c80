#include "train_phase.hpp"

#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include "trn/common/process.hpp"
#include "trn/common/text_file.hpp"

namespace trn::launcher {
namespace {

// Follows the log of the node that runs task 0 and prints task 0's lines without their label.
class RankZeroFollower {
 public:
  explicit RankZeroFollower(std::filesystem::path log) : log_(std::move(log)) {}

  void poll() {
    if (!file_.is_open()) {
      file_.open(log_);  // srun creates it when the step starts
      if (!file_.is_open()) return;
    }
    file_.clear();
    pending_.append(std::istreambuf_iterator<char>(file_), {});
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
  std::filesystem::path log_;
  std::ifstream file_;
  std::string pending_;
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

}  // namespace

TrainOutcome run_train_step(const TrainStep& step) {
  std::filesystem::create_directories(step.log_dir);
  const auto prefix = step.phase + "_";
  const auto suffix = "_" + std::to_string(step.nnodes) + ".log";
  std::vector<std::string> argv = {
      "srun", "--label", "--kill-on-bad-exit=1",
      "--output=" + (step.log_dir / (prefix + "%N" + suffix)).string()};
  argv.insert(argv.end(), step.srun_args.begin(), step.srun_args.end());
  argv.insert(argv.end(), step.command.begin(), step.command.end());

  const int pid = start_process(argv, {.extra_env = step.env});
  RankZeroFollower follower(step.log_dir / (prefix + step.first_node + suffix));
  TrainOutcome outcome;
  for (;;) {
    outcome.status = wait_process(pid, /*block=*/false);
    follower.poll();
    if (outcome.status >= 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  follower.poll();
  if (outcome.status != 0) {
    outcome.diagnosis =
        run::diagnose_training_failure(read_rank_outputs(step.log_dir, prefix, suffix), step.tasks);
  }
  return outcome;
}

}  // namespace trn::launcher
