#include "node_probe.hpp"

#include <signal.h>

#include <thread>

#include "trn/common/process.hpp"
#include "trn/run/slurm_node_state.hpp"

namespace trn::launcher {

std::set<std::string> unreachable_by_slurmctld(const std::vector<std::string>& nodes) {
  std::string list;
  for (const auto& node : nodes) list += (list.empty() ? "" : ",") + node;
  ProcessOptions options;
  options.stdin_dev_null = true;
  options.stderr_to = StderrTo::kDevNull;
  options.timeout = std::chrono::seconds(5);
  const auto sinfo = capture_process({"sinfo", "-h", "-N", "-o", "%N %T", "-n", list}, options);
  if (sinfo.status != 0 || sinfo.timed_out) return {};  // no answer is no evidence
  return run::unreachable_by_slurm(sinfo.output);
}

std::vector<std::string> unresponsive_nodes(
    const std::vector<std::string>& nodes, const ProbeLimits& limits,
    const std::function<std::set<std::string>(const std::vector<std::string>&)>& ask_slurmctld) {
  ProcessOptions options;
  options.stdin_dev_null = true;
  options.stderr_to = StderrTo::kDevNull;
  std::vector<int> pids;
  pids.reserve(nodes.size());
  for (const auto& node : nodes) {
    pids.push_back(start_process(
        {"srun", "--overlap", "--quiet", "--nodes=1", "--ntasks=1", "--nodelist=" + node, "true"},
        options));
  }
  std::vector<int> status(nodes.size(), -1);
  std::set<std::string> unreachable;
  const auto started = std::chrono::steady_clock::now();
  auto next_question = started + limits.quick;
  for (;;) {
    std::vector<std::string> waiting;
    for (std::size_t i = 0; i < pids.size(); ++i) {
      if (status[i] < 0) status[i] = wait_process(pids[i], /*block=*/false);
      if (status[i] < 0 && !unreachable.contains(nodes[i])) waiting.push_back(nodes[i]);
    }
    const auto now = std::chrono::steady_clock::now();
    if (waiting.empty() || now - started >= limits.patience) break;
    if (now >= next_question) {
      next_question = now + std::chrono::seconds(1);
      unreachable.merge(ask_slurmctld(waiting));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<std::string> lost;
  for (std::size_t i = 0; i < pids.size(); ++i) {
    if (status[i] < 0) {
      ::kill(pids[i], SIGKILL);
      wait_process(pids[i]);
    }
    if (status[i] != 0) lost.push_back(nodes[i]);
  }
  return lost;
}

}  // namespace trn::launcher
