#include "watchdog.hpp"

#include <unistd.h>

#include <string>
#include <thread>

#include "common/exit_codes.hpp"

namespace trn::health_tool {

void start_watchdog(std::chrono::seconds limit) {
  std::thread([limit] {
    std::this_thread::sleep_for(limit);
    // Another thread may hold the stream locks: write(2) and _exit only.
    const std::string message =
        "trn-health: stopped at its time limit of " + std::to_string(limit.count()) +
        " s (--time-limit) before deciding; the node's state is left as it is\n";
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, message.data(), message.size());
    ::_exit(launcher::kTimedOut);
  }).detach();
}

}  // namespace trn::health_tool
