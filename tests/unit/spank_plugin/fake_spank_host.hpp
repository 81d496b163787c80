#pragma once

// A fake SPANK host: the spank_* and slurm_* functions Slurm's processes give a plugin,
// implemented over plain state a test sets up and inspects. Item and environment access follow
// Slurm 22.05's rules per context (plugstack.c), e.g. only UID/GID/JOB_ID in the prolog and no
// spank_getenv outside slurmstepd, so a plugin that asks for more fails here as it would there.

extern "C" {
#include <slurm/spank.h>
}

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fake_spank {

enum class Phase { kNone, kInit, kInitPostOpt, kTaskInitPrivileged, kTaskInit, kExit };

struct LogLine {
  std::string level;  // error, info, verbose, debug, debug2, debug3, spank_log
  std::string text;
};

struct RegisteredOption {
  std::string name;
  std::string arginfo;
  std::string usage;
  int has_arg = 0;
  int val = 0;
  spank_opt_cb_f cb = nullptr;
};

struct HostState {
  spank_context_t context = S_CTX_REMOTE;
  Phase phase = Phase::kNone;
  uid_t uid = 0;
  gid_t gid = 0;
  std::uint32_t job_id = 0;
  std::uint32_t step_id = 0;
  std::uint32_t nnodes = 1;
  std::uint32_t node_id = 0;
  std::uint32_t local_tasks = 1;
  std::uint32_t total_tasks = 1;
  std::optional<std::string> step_alloc_cores;
  std::vector<std::string> argv;  // S_JOB_ARGV
  int task_id = -1;               // -1: not in a task callback
  std::uint32_t task_global_id = 0;
  std::map<std::string, std::string> env;  // the job's (or, in a task callback, the task's)
  std::vector<RegisteredOption> options;
  std::vector<LogLine> log;
  bool refuse_option_register = false;
  int setenv_calls = 0;
};

HostState& state();
void reset();
spank_t handle();

// All log lines at `level` (or all levels when empty) that contain `part`.
std::vector<std::string> log_lines(const std::string& level, const std::string& part = "");

}  // namespace fake_spank
