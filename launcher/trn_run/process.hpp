#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trn::launcher {

struct ProcessOptions {
  std::map<std::string, std::string> extra_env;  // added to (and overriding) our environment
  bool capture_stderr = false;                   // capture_process: stderr into output too
};

// Starts argv (PATH lookup) with inherited stdio; returns its pid. Throws trn::Error.
int start_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// Exit status as a shell reports it: the exit code, or 128 + signal. -1 while still running
// (wait_process with block=false).
int wait_process(int pid, bool block = true);

int run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

struct CapturedProcess {
  int status = 0;
  std::string output;  // stdout only; stderr passes through
};
CapturedProcess capture_process(const std::vector<std::string>& argv,
                                const ProcessOptions& options = {});

}  // namespace trn::launcher
