#include "remote_step.hpp"

#include <cstdlib>
#include <memory>

#include "efa_limits.hpp"
#include "guard.hpp"
#include "log.hpp"
#include "node_topology_source.hpp"
#include "slurm_step.hpp"
#include "spank_host.hpp"
#include "trn/cache/user_cache_dir.hpp"
#include "trn/common/cpu_binding.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/error.hpp"
#include "trn/common/node_name.hpp"
#include "trn/common/resolve_host.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/placement/placement.hpp"
#include "trn/taskenv/task_environment.hpp"
#include "user_options.hpp"

namespace trn::spank::remote {
namespace {

struct StepState {
  PluginConfig config;
  SlurmStep slurm;
  topology::NodeTopology topology;
  placement::PlacementRequest request;
  taskenv::EnvOptions env_options;
  std::string rendezvous_address;  // "" when the first host did not resolve
  placement::StepPlacement placement;
  taskenv::StepEnvironment env;
  bool efa_in_use = false;
  bool bind_affinity = false;
  // For the user, from task 0's task_init: slurmstepd's messages before the tasks start reach
  // only the slurmd log.
  std::vector<std::string> warnings;
  // The step's decisions (placement, launch, EFA, notes): logged at verbose level on the node,
  // and repeated to the user from task 0 when srun runs with -v (see srun_verbose).
  std::vector<std::string> decisions;
};

// One step per slurmstepd; tasks are forked from it and inherit the state.
std::unique_ptr<StepState> g_step;
// Why the step could not be set up. Slurm 22.05 reports a failing init_post_opt to srun only as
// "Plugin initialization failed"; a message from task_init reaches the user's terminal, so the
// failure is raised there, before the task's program runs.
std::optional<std::string> g_failure;

bool wanted(const PluginConfig& config, const UserOptions& options) {
  if (options.trn) return *options.trn;
  return config.default_on || options.any_given();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : "; ") + line;
  return out;
}

// NEURON_COMPILE_CACHE_URL: the user's --neuron-cache, else their directory in the node-local
// tier (made here, as root, on the first step of the user on this node). A tier that cannot be used
// is a warning, not a failure: the runtime then uses its own default.
std::optional<std::string> compile_cache(const PluginConfig& config, const UserOptions& options,
                                         const SlurmStep& slurm,
                                         std::vector<std::string>& warnings) {
  if (options.cache) {
    if (options.cache->empty()) return std::nullopt;
    return options.cache;
  }
  if (!config.local_cache) return std::nullopt;
  try {
    return cache::ensure_user_cache_dir(*config.local_cache, cache::user_name(slurm.uid), slurm.uid,
                                        slurm.gid)
        .string();
  } catch (const Error& e) {
    warnings.push_back(std::string(e.what()) + "; NEURON_COMPILE_CACHE_URL left unset");
    return std::nullopt;
  }
}

void place(StepState& step) {
  step.placement = placement::place_step(step.topology, step.request);
  step.env = taskenv::prepare_step_environment(step.topology, step.placement, step.slurm.facts,
                                               step.env_options);
  if (!step.rendezvous_address.empty()) step.env.rendezvous_host = step.rendezvous_address;
}

void resolve_rendezvous(StepState& step, const Host& host) {
  std::string why;
  if (auto address = resolve_ipv4(step.slurm.facts.first_host, &why)) {
    step.rendezvous_address = *address;
    step.env.rendezvous_host = *address;
    return;
  }
  // Only NEURON_RT_ROOT_COMM_ID must be an address; a user's MASTER_ADDR replaces the host.
  if (step.env.root_comm_port.empty() || host.getenv(std::string(env::kMasterAddr))) return;
  throw Error("cannot resolve " + step.slurm.facts.first_host +
              ", the step's first node, to an IPv4 address (" + why +
              "): NEURON_RT_ROOT_COMM_ID needs it; add the node to DNS or /etc/hosts, or set "
              "MASTER_ADDR");
}

std::string summary(const StepState& step, const topology::CachedDiscovery& source) {
  const auto& facts = step.slurm.facts;
  std::string line = "step " + std::to_string(facts.job_id) + "." + std::to_string(facts.step_id) +
                     " on " + facts.node_name + ": " + std::to_string(facts.local_task_count) +
                     " task(s)";
  if (step.placement.has_neuron_cores()) {
    line += ", " + std::to_string(step.placement.cores_per_task) + " NeuronCore(s) each, " +
            std::string(taskenv::to_string(step.env_options.launch)) + " launch";
  }
  line += ", bind " + std::string(placement::to_string(step.placement.bind));
  line += step.efa_in_use ? ", EFA in use" : ", no EFA";
  line +=
      source.from_cache ? ", topology from cache" : ", topology discovered (" + source.note + ")";
  return line;
}

// Slurm sets the propagated limits (SLURM_RLIMIT_*) right before exec, after every SPANK
// callback: a login shell's 64 KiB memlock would undo the raise. Drop the propagated value
// when it is lower, unless the user asked for it explicitly (srun --propagate: "U" prefix).
void keep_raised_limit(const Host& host, const LimitChange& change, bool log) {
  const std::string name = "SLURM_" + change.name;  // SLURM_RLIMIT_MEMLOCK
  const auto propagated = host.getenv(name);
  if (!propagated || propagated->empty()) return;
  if ((*propagated)[0] == 'U') {
    if (log) log_verbose(name + " kept: the user asked to propagate it (--propagate)");
    return;
  }
  const rlim_t value = std::strtoull(propagated->c_str(), nullptr, 10);
  const rlim_t raised = change.after.rlim_cur;
  if (raised == RLIM_INFINITY ? value != RLIM_INFINITY : value < raised) {
    host.unsetenv(name);
    if (log) {
      log_verbose("the submitting shell's " + change.name + " (" + describe_limit(value) +
                  ") is not propagated to the task: EFA needs " + describe_limit(raised));
    }
  }
}

std::unique_ptr<StepState> prepare_step(spank_t handle, const PluginConfig& config) {
  const Host host(handle);
  const UserOptions& options = user_options();
  if (!options.errors.empty()) throw Error(joined(options.errors));
  const std::uint32_t step_id = host.u32(S_JOB_STEPID, "S_JOB_STEPID");
  if (!is_task_step(step_id)) {
    log_debug("batch, extern or interactive step: nothing to set up");
    return nullptr;
  }
  if (!wanted(config, options)) {
    log_verbose("off for this step (--neuron-trn=off, or default=off without --neuron-* options)");
    return nullptr;
  }
  auto step = std::make_unique<StepState>();
  step->config = config;
  step->slurm = read_slurm_step(host);
  // fsroot=DIR/%n: one recorded tree per node (a local test cluster with one faulty node).
  step->config.fsroot = expand_node_name(config.fsroot.string(), step->slurm.facts.node_name);
  const auto source = load_node_topology(step->config);
  step->topology = source.topology;

  auto& request = step->request;
  request.local_tasks = step->slurm.facts.local_task_count;
  request.cores_per_task = options.cores_per_task;
  request.bind = options.bind.value_or(config.bind);
  request.lnc = options.lnc;
  request.lnc_env = host.getenv(std::string(env::kNeuronLogicalNcConfig));
  if (config.use_alloc_cores) request.allowed_cores = step->slurm.alloc_cores;
  // GPU GRES on a node without Neuron devices are someone else's GPUs (a CUDA node).
  if (!step->topology.devices.empty()) request.allowed_devices = step->slurm.devices;

  step->env_options.efa = options.efa.value_or(config.efa);
  step->env_options.override_user = options.override_env;
  step->env_options.compile_cache = compile_cache(config, options, step->slurm, step->warnings);
  step->env_options.shared_cache = config.cache_root;
  // The tree as configured (with its %n), for trn-run's own steps on these nodes.
  if (!config.real_root()) step->env_options.fsroot = config.fsroot.string();
  step->env_options.launch = taskenv::resolve_neuron_launch(
      options.launch.value_or(taskenv::NeuronLaunch::kAuto), host.argv());
  step->env_options.cores_per_task_fixed = options.cores_per_task.has_value();

  place(*step);
  resolve_rendezvous(*step, host);
  step->efa_in_use =
      step->env_options.efa != taskenv::EfaMode::kOff && !step->topology.efa_devices.empty();
  step->bind_affinity = step->config.real_root() && step->placement.bind_cpus;

  auto& decisions = step->decisions;
  decisions.insert(decisions.end(), step->placement.notes.begin(), step->placement.notes.end());
  decisions.insert(decisions.end(), step->env.notes.begin(), step->env.notes.end());
  if (config.cache_root) log_debug("shared compile-cache tier: " + *config.cache_root);
  if (!step->config.real_root() && step->placement.bind_cpus) {
    log_debug("fsroot=" + step->config.fsroot.string() +
              ": CPUs are recorded, tasks are not bound");
  }
  decisions.push_back(summary(*step, source));
  for (const auto& decision : decisions) log_verbose(decision);
  return step;
}

}  // namespace

void fail_step(const std::string& why) {
  g_step.reset();
  g_failure = why;
  log_error("init: " + why);
}

void init_post_opt(spank_t handle, const PluginConfig& config) {
  if (g_failure) return;
  reset();
  try {
    g_step = prepare_step(handle, config);
  } catch (const std::exception& e) {
    g_failure = e.what();
    log_error(std::string("init_post_opt: ") + e.what());
  }
}

void task_init_privileged(spank_t handle) {
  if (!g_step || !g_step->efa_in_use) return;
  const Host host(handle);
  const bool log = host.task_id() == 0;
  for (const auto& change : raise_efa_limits()) {
    if (log && change.changed()) {
      log_verbose("EFA in use: " + change.name + " raised from " +
                  describe_limit(change.before.rlim_cur) + " to " +
                  describe_limit(change.after.rlim_cur));
    }
    keep_raised_limit(host, change, log);
  }
}

// srun -v exports SRUN_DEBUG (Slurm's log level: 3 info, 4 verbose) to the tasks. Messages from
// slurmstepd before the tasks start reach only the slurmd log, so task 0 repeats the step's
// decisions on its stderr, which is the user's terminal.
bool srun_verbose(const Host& host) {
  constexpr std::int64_t kVerbose = 4;
  const auto level = host.getenv("SRUN_DEBUG");
  const auto number = level ? parse_whole_number(*level) : std::nullopt;
  return number && *number >= kVerbose;
}

void task_init(spank_t handle) {
  if (!g_step && !g_failure) return;
  const Host host(handle);
  const int local_id = host.task_id();
  if (g_failure) {
    // Once per node is enough for the user; every task fails.
    if (local_id == 0) throw Error(*g_failure);
    throw ReportedFailure();
  }
  if (local_id < 0) throw Error("S_TASK_ID is " + std::to_string(local_id) + ": not a task");
  taskenv::TaskIds ids;
  ids.local_id = unsigned(local_id);
  ids.global_id = host.u32(S_TASK_GLOBAL_ID, "S_TASK_GLOBAL_ID");

  const StepState* step = g_step.get();
  // gpu GRES variables may first appear in the task's environment: place again (in this
  // task's process only) if they differ from what the step was placed with.
  std::unique_ptr<StepState> replaced;
  if (!step->topology.devices.empty()) {
    auto devices = granted_devices(host);
    if (devices != step->request.allowed_devices) {
      replaced = std::make_unique<StepState>(*step);
      replaced->request.allowed_devices = std::move(devices);
      place(*replaced);
      step = replaced.get();
      log_debug("the task's granted Neuron devices differ from the step's: placed again");
    }
  }

  const taskenv::TaskEnvironment env = taskenv::task_environment(
      step->env, ids, [&host](const std::string& name) { return host.getenv(name); });
  for (const auto& var : env.set) host.setenv(var.name, var.value);
  if (ids.local_id == 0) {
    for (const auto& warning : step->warnings) tell_user_from_task("warning: " + warning);
    for (const auto& warning : env.warnings) tell_user_from_task("warning: " + warning);
    const bool verbose = srun_verbose(host);
    if (verbose) {
      for (const auto& decision : step->decisions) tell_user_from_task(decision);
    }
    if (!env.kept.empty()) {
      const auto kept = "kept as set by the user: " + joined(env.kept);
      verbose ? tell_user_from_task(kept) : log_verbose(kept);
    }
  }
  if (step->bind_affinity) bind_task_to_cpus(step->placement.tasks.at(ids.local_id).cpus);
}

void reset() {
  g_step.reset();
  g_failure.reset();
}

}  // namespace trn::spank::remote
