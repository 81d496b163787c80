#include "slurm_hostnames.hpp"

#include <sstream>

#include "trn/common/error.hpp"
#include "trn/common/process.hpp"

namespace trn::launcher {

std::vector<std::string> slurm_hostnames(const std::string& hostlist,
                                         std::chrono::milliseconds timeout) {
  ProcessOptions options;
  options.stdin_dev_null = true;
  options.timeout = timeout;
  const auto result = capture_process({"scontrol", "show", "hostnames", hostlist}, options);
  if (result.status != 0 || result.timed_out) {
    throw Error("scontrol show hostnames " + hostlist + " failed: is scontrol on PATH?");
  }
  std::vector<std::string> hosts;
  std::istringstream lines(result.output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) hosts.push_back(line);
  }
  return hosts;
}

}  // namespace trn::launcher
