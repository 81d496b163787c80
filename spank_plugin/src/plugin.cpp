// The SPANK entry points of spank_trn.so. Each one dispatches on the context it runs in to the
// file that handles it and runs inside guarded(): no exception reaches the C host.
//   remote (slurmstepd)         remote_step.cpp
//   local (srun), allocator     client_context.cpp
// There is deliberately no slurm_spank_job_prolog: with one, slurmd starts an extra process per
// job and node to run it (about 50 ms of a 400 ms srun here), and a failing prolog drains the
// node. The root-side work (the user's compile-cache directory) is done in init_post_opt, which
// slurmstepd runs as root before every step anyway.
#include "client_context.hpp"
#include "guard.hpp"
#include "log.hpp"
#include "plugin_config.hpp"
#include "remote_step.hpp"
#include "spank_api.hpp"
#include "user_options.hpp"

// The loader looks these up with dlsym: plugin_name, plugin_type and plugin_version (Slurm
// refuses a plugin built for another major.minor). SPANK_PLUGIN also defines
// spank_plugin_version. Declared extern "C" first so the const definitions get external
// linkage and unmangled names. Built with -fvisibility=hidden: only what this file marks default
// can be exported (the linker version script then names exactly what is).
#pragma GCC visibility push(default)
extern "C" {
extern const char plugin_name[];
extern const char plugin_type[];
extern const unsigned int plugin_version;
extern const unsigned int spank_plugin_version;
}
SPANK_PLUGIN(spank_trn, 1)
#pragma GCC visibility pop

namespace {

using namespace trn::spank;

PluginConfig g_config;

int init(spank_t handle, int argc, char** argv) {
  reset_user_options();
  remote::reset();
  const spank_context_t context = spank_context();
  if (context == S_CTX_SLURMD) {
    // slurmd stops when its plugin stack fails to start: a bad plugstack line is reported here
    // and fails each step instead (remote context parses it again).
    try {
      parse_plugin_config(argc, argv);
    } catch (const trn::Error& e) {
      log_error(e.what());
    }
    return kSpankSuccess;
  }
  if (context == S_CTX_REMOTE) {
    // A failing init reaches srun only as "Plugin initialization failed": the step fails from
    // task_init instead, with the message.
    try {
      g_config = parse_plugin_config(argc, argv);
    } catch (const trn::Error& e) {
      remote::fail_step(e.what());
    }
  } else {
    g_config = parse_plugin_config(argc, argv);
  }
  register_user_options(handle);
  return kSpankSuccess;
}

int init_post_opt(spank_t handle) {
  switch (spank_context()) {
    case S_CTX_REMOTE:
      remote::init_post_opt(handle, g_config);
      break;
    case S_CTX_LOCAL:
    case S_CTX_ALLOCATOR:
      client::init_post_opt(handle, g_config);
      break;
    default:
      break;
  }
  return kSpankSuccess;
}

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

int slurm_spank_init(spank_t handle, int argc, char** argv) {
  return guarded("init", [&] { return init(handle, argc, argv); });
}

int slurm_spank_init_post_opt(spank_t handle, int, char**) {
  return guarded("init_post_opt", [&] { return init_post_opt(handle); });
}

int slurm_spank_task_init_privileged(spank_t handle, int, char**) {
  return guarded("task_init_privileged", [&] {
    if (spank_context() == S_CTX_REMOTE) remote::task_init_privileged(handle);
    return kSpankSuccess;
  });
}

int slurm_spank_task_init(spank_t handle, int, char**) {
  return guarded("task_init", [&] {
    if (spank_context() == S_CTX_REMOTE) remote::task_init(handle);
    return kSpankSuccess;
  });
}

int slurm_spank_exit(spank_t, int, char**) {
  return guarded("exit", [&] {
    remote::reset();
    reset_user_options();
    return kSpankSuccess;
  });
}

}  // extern "C"
#pragma GCC visibility pop
