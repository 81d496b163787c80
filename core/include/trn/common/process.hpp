#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

// Starting other programs (posix_spawn, no shell): trn-run's steps and tools, neuron-ls.
namespace trn {

// Where a child's standard error goes.
enum class StderrTo {
  kInherited,  // ours
  kOutput,     // capture_process: into the captured output, interleaved with stdout
  kDevNull,    // discarded
};

struct ProcessOptions {
  std::map<std::string, std::string> extra_env{};  // added to (and overriding) our environment
  StderrTo stderr_to = StderrTo::kInherited;
  bool stdin_dev_null = false;  // else the child reads our stdin
  // capture_process: the child is killed (SIGKILL) when it runs longer; see timed_out.
  std::optional<std::chrono::milliseconds> timeout{};
  // A host process (slurmstepd) may reap our child before we do (waitpid: ECHILD); then the
  // status reads 0 and the caller judges the output instead. Elsewhere ECHILD is an error.
  bool host_may_reap = false;
  // The child leads a process group of its own, and a timeout kills the whole group: a tool
  // that starts helpers of its own (nccom-test's neuron-bench) leaves none behind.
  bool own_process_group = false;
  // start_process: the child's stdout and stderr both go to this descriptor (a pipe the caller
  // reads); -1 keeps ours.
  int output_fd = -1;
};

// Starts argv (PATH lookup unless argv[0] has a '/'); returns its pid. Throws trn::Error when
// it cannot be started.
int start_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// Exit status as a shell reports it: the exit code, or 128 + signal. -1 while still running
// (wait_process with block=false).
int wait_process(int pid, bool block = true);

int run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

struct CapturedProcess {
  int status = 0;          // as wait_process reports it
  int signal = 0;          // the signal that ended it, 0 when it exited
  bool timed_out = false;  // killed after options.timeout; status and signal then say nothing
  std::string output;      // stdout (and stderr with StderrTo::kOutput)
};
CapturedProcess capture_process(const std::vector<std::string>& argv,
                                const ProcessOptions& options = {});

// How a caller with a time budget runs its tools: capture_process, or a test's stand-in that
// sees the options (the timeout) each run was given and answers as the tool would, in no time.
using ProcessRunner =
    std::function<CapturedProcess(const std::vector<std::string>&, const ProcessOptions&)>;

}  // namespace trn
