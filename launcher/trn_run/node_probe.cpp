#include "node_probe.hpp"

#include <signal.h>

#include <thread>

#include "trn/common/process.hpp"

namespace trn::launcher {

std::vector<std::string> unresponsive_nodes(const std::vector<std::string>& nodes,
                                            std::chrono::milliseconds limit) {
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
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    bool running = false;
    for (std::size_t i = 0; i < pids.size(); ++i) {
      if (status[i] < 0) status[i] = wait_process(pids[i], /*block=*/false);
      running = running || status[i] < 0;
    }
    if (!running || std::chrono::steady_clock::now() >= deadline) break;
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
