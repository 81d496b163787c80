#include "plugin_driver.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace trn::test {
namespace {

using Callback = int (*)(spank_t, int, char**);

fake_spank::Phase phase_of(const std::string& callback) {
  using fake_spank::Phase;
  if (callback == "init") return Phase::kInit;
  if (callback == "init_post_opt") return Phase::kInitPostOpt;
  if (callback == "task_init_privileged") return Phase::kTaskInitPrivileged;
  if (callback == "task_init") return Phase::kTaskInit;
  if (callback == "exit") return Phase::kExit;
  return Phase::kNone;
}

}  // namespace

Plugin::Plugin() {
  handle_ = ::dlopen(TRN_SPANK_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) throw std::runtime_error(std::string("dlopen: ") + ::dlerror());
}

Plugin::~Plugin() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

void* Plugin::symbol(const char* name) const { return ::dlsym(handle_, name); }

int Plugin::call(const std::string& callback, const std::vector<std::string>& args) {
  auto* function = reinterpret_cast<Callback>(symbol(("slurm_spank_" + callback).c_str()));
  if (function == nullptr) throw std::runtime_error("no slurm_spank_" + callback);
  std::vector<std::string> copies = args;
  std::vector<char*> argv;
  for (auto& arg : copies) argv.push_back(arg.data());
  argv.push_back(nullptr);
  fake_spank::state().phase = phase_of(callback);
  const int rc = function(fake_spank::handle(), int(copies.size()), argv.data());
  fake_spank::state().phase = fake_spank::Phase::kNone;
  return rc;
}

int Plugin::option(const std::string& name, const std::string& value, bool remote) {
  for (const auto& option : fake_spank::state().options) {
    if (option.name == name) return option.cb(option.val, value.c_str(), remote ? 1 : 0);
  }
  throw std::runtime_error("option --" + name + " was not registered");
}

StepRun run_step(Plugin& plugin, const std::vector<std::string>& args, const Options& options) {
  auto& host = fake_spank::state();
  host.context = S_CTX_REMOTE;
  StepRun run;
  run.init = plugin.call("init", args);
  for (const auto& [name, value] : options)
    run.option_results.push_back(plugin.option(name, value, true));
  run.init_post_opt = plugin.call("init_post_opt", args);
  const Env job_env = host.env;
  for (unsigned task = 0; task < host.local_tasks; ++task) {
    host.env = job_env;
    host.task_id = int(task);
    host.task_global_id = host.node_id * host.local_tasks + task;
    run.task_init_privileged.push_back(plugin.call("task_init_privileged", args));
    run.task_init.push_back(plugin.call("task_init", args));
    run.task_env.push_back(host.env);
  }
  host.task_id = -1;
  host.env = job_env;
  run.exit = plugin.call("exit", args);
  return run;
}

void set_up_step(unsigned nnodes, unsigned node_id, unsigned local_tasks,
                 const std::string& nodelist) {
  auto& host = fake_spank::state();
  host.context = S_CTX_REMOTE;
  host.uid = 0;
  host.gid = 0;
  host.job_id = 4242;
  host.step_id = 0;
  host.nnodes = nnodes;
  host.node_id = node_id;
  host.local_tasks = local_tasks;
  host.total_tasks = nnodes * local_tasks;
  host.env["SLURM_STEP_NODELIST"] = nodelist;
  host.env["SLURM_JOB_NODELIST"] = nodelist;
  host.env["SLURMD_NODENAME"] = "node" + std::to_string(node_id);
  host.env["PATH"] = "/usr/bin:/bin";
}

Env added(const Env& before, const Env& after) {
  Env out;
  for (const auto& [name, value] : after) {
    const auto it = before.find(name);
    if (it == before.end() || it->second != value) out[name] = value;
  }
  return out;
}

}  // namespace trn::test
