#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trn/common/error.hpp"
#include "trn/common/process.hpp"
#include "trn/topology/neuron_ls.hpp"

namespace trn::topology {

std::optional<NeuronLsOutput> run_neuron_ls(const std::filesystem::path& executable,
                                            std::chrono::milliseconds timeout,
                                            const ProcessRunner& run) {
  const std::string origin = executable.string() + " -j";
  if (::access(executable.c_str(), X_OK) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error("cannot run " + origin + ": " + std::strerror(errno) +
                ": install aws-neuronx-tools or pass a recorded neuron-ls output");
  }
  ProcessOptions options;
  options.stdin_dev_null = true;
  options.stderr_to = StderrTo::kDevNull;
  options.timeout = timeout;
  // Inside slurmstepd, which may reap our child first: the output is then judged by parsing.
  options.host_may_reap = true;
  const auto ran = run({executable.string(), "-j"}, options);
  if (ran.timed_out) {
    throw Error(origin + " did not finish within " + std::to_string(timeout.count()) +
                " ms: check the Neuron driver (dmesg), or pass a recorded neuron-ls output");
  }
  if (ran.status != 0) {
    throw Error(origin + " failed (" +
                (ran.signal != 0 ? "signal " + std::to_string(ran.signal)
                                 : "exit status " + std::to_string(ran.status)) +
                "): run it by hand to see why, or pass a recorded neuron-ls output");
  }
  return NeuronLsOutput{ran.output, origin};
}

}  // namespace trn::topology
