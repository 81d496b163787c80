#pragma once

// Loads the built spank_trn.so with dlopen (RTLD_NOW: every symbol it needs must come from the
// fake host) and drives it the way Slurm's processes do, context by context.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fake_spank_host.hpp"

namespace trn::test {

inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(TRN_FIXTURES_DIR) / name;
}

class Plugin {
 public:
  Plugin();
  ~Plugin();
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  void* symbol(const char* name) const;
  // Calls slurm_spank_<callback> with the plugstack arguments; the fake host's phase is set.
  int call(const std::string& callback, const std::vector<std::string>& args = {});
  // What Slurm does with a user option: finds the registered option and runs its callback.
  int option(const std::string& name, const std::string& value, bool remote);

 private:
  void* handle_ = nullptr;
};

using Options = std::vector<std::pair<std::string, std::string>>;
using Env = std::map<std::string, std::string>;

// One step on one node, as slurmstepd runs it: init (plugstack args), the forwarded options,
// init_post_opt, then for each local task task_init_privileged and task_init on a copy of the
// job's environment, then exit. The fake host's state (uid, job/step ids, nodes, tasks, env) is
// set up by the test before.
struct StepRun {
  int init = 0;
  std::vector<int> option_results;
  int init_post_opt = 0;
  std::vector<int> task_init_privileged;
  std::vector<int> task_init;
  std::vector<Env> task_env;  // each task's environment after task_init
  int exit = 0;
};

StepRun run_step(Plugin& plugin, const std::vector<std::string>& args, const Options& options = {});

// Sets the fake host up for step `step_id` of job `job_id` on `node_id` of `nnodes` nodes with
// `local_tasks` tasks per node (block distribution) and the Slurm variables srun passes.
void set_up_step(unsigned nnodes, unsigned node_id, unsigned local_tasks,
                 const std::string& nodelist = "localhost,trn-b");

// Variables the plugin set or changed in a task, relative to the job environment before.
Env added(const Env& before, const Env& after);

}  // namespace trn::test
