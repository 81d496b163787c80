#include "slurm_task.hpp"

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include "common/exit_codes.hpp"
#include "exec_command.hpp"
#include "task_setup.hpp"
#include "trn/cache/user_cache_dir.hpp"
#include "trn/common/cpu_binding.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/run/slurm_task.hpp"

namespace trn::launcher {
namespace {

struct SlurmTaskOptions {
  std::string fsroot = "/";
  std::optional<std::string> cache_shared;
  // As spank_trn's local_cache= default: the user's directory in the node-local tier.
  std::optional<std::filesystem::path> local_cache =
      std::filesystem::path("/var/tmp/neuron-compile-cache");
  // spank_trn's topology_cache= default: the node's topology read once per boot.
  std::optional<std::filesystem::path> topology_cache = std::filesystem::path("/run/trn-slurm");
  std::vector<std::string> command;
};

SlurmTaskOptions parse_slurm_task_options(const std::vector<std::string>& args) {
  SlurmTaskOptions options;
  std::size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    const auto& arg = args[i];
    const auto equals = arg.find('=');
    const auto name = arg.substr(0, equals);
    if (equals == std::string::npos) throw Error("slurm-task: give " + arg + "=VALUE");
    const auto value = arg.substr(equals + 1);
    if (name == "--fsroot") {
      options.fsroot = value;
    } else if (name == "--cache-shared") {
      if (!value.empty()) options.cache_shared = value;
    } else if (name == "--topology-cache") {
      options.topology_cache =
          value == "off" ? std::nullopt : std::optional(std::filesystem::path(value));
    } else if (name == "--local-cache") {
      options.local_cache =
          value == "off" ? std::nullopt : std::optional(std::filesystem::path(value));
    } else {
      throw Error("slurm-task: unknown option " + arg);
    }
  }
  if (i < args.size())
    options.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
  if (options.command.empty()) throw Error("slurm-task: no command after --");
  return options;
}

// NEURON_COMPILE_CACHE_URL as spank_trn sets it: the user's directory in the node-local tier;
// a tier that cannot be used is a warning and the runtime's default.
std::optional<std::string> user_compile_cache(const SlurmTaskOptions& options) {
  if (!options.local_cache) return std::nullopt;
  try {
    return cache::ensure_user_cache_dir(*options.local_cache, cache::user_name(::getuid()),
                                        ::getuid(), ::getgid())
        .string();
  } catch (const Error& e) {
    std::cerr << "trn-launcher slurm-task: warning: " << e.what()
              << "; NEURON_COMPILE_CACHE_URL left unset\n";
    return std::nullopt;
  }
}

}  // namespace

int slurm_task_command(const std::vector<std::string>& args) {
  const auto options = parse_slurm_task_options(args);
  const auto task = run::read_slurm_task([](const std::string& name) { return env_value(name); });
  NodeStep step;
  step.fsroot = options.fsroot;
  step.topology_cache = options.topology_cache;
  step.facts = task.facts;
  step.command = options.command;
  step.devices = task.devices;
  step.env_options.shared_cache = options.cache_shared;
  step.env_options.compile_cache = user_compile_cache(options);
  const auto setup = task_setups(step, {task.ids}, "trn-launcher slurm-task").front();
  for (const auto& [name, value] : setup.env) ::setenv(name.c_str(), value.c_str(), 1);
  if (setup.cpus) bind_task_to_cpus(*setup.cpus);
  return exec_command(options.command, "trn-launcher slurm-task");
}

}  // namespace trn::launcher
