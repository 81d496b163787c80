#include "log.hpp"

#include <unistd.h>

#include <string>

#include "spank_api.hpp"

namespace trn::spank {
namespace {

std::string prefixed(std::string_view message) {
  std::string line(kPrefix);
  line.append(message);
  return line;
}

}  // namespace

void log_error(std::string_view message) { slurm_error("%s", prefixed(message).c_str()); }
void log_info(std::string_view message) { slurm_info("%s", prefixed(message).c_str()); }
void log_verbose(std::string_view message) { slurm_verbose("%s", prefixed(message).c_str()); }
void tell_user_from_task(std::string_view message) {
  log_info(message);
  const std::string line = prefixed(message) + "\n";
  // One write: lines of tasks on other nodes do not interleave within it. Nothing to do when
  // the terminal is gone.
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, line.data(), line.size());
}

void log_debug(std::string_view message) { slurm_debug("%s", prefixed(message).c_str()); }

}  // namespace trn::spank
