#include <cmath>

#include "plan_fields.hpp"
#include "scaling.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/error.hpp"
#include "trn/plan/command_template.hpp"
#include "trn/plan/plan.hpp"
#include "trn/plan/tensor_parallel_groups.hpp"

namespace trn::plan {
namespace {

std::string expand_home(const std::string& path, const std::string& home) {
  if (home.empty()) return path;
  if (path == "~") return home;
  if (path.starts_with("~/")) return home + path.substr(1);
  return path;
}

std::string where(const Profile& profile) {
  return profile.source.empty() ? "profile " + profile.name : profile.source.string();
}

void check_cluster(const Profile& profile, const ClusterShape& cluster) {
  if (cluster.nodes < 1) {
    throw Error("profile " + profile.name + ": cannot plan for " + std::to_string(cluster.nodes) +
                " nodes: give the node count (--nodes N) or run inside a Slurm job");
  }
  if (!cluster.node_names.empty() &&
      static_cast<std::int64_t>(cluster.node_names.size()) != cluster.nodes) {
    throw Error("the node list names " + std::to_string(cluster.node_names.size()) +
                " nodes but the allocation has " + std::to_string(cluster.nodes) +
                ": pass the nodes of one allocation");
  }
  if (cluster.neuron_cores_per_node < 0) {
    throw Error("a node cannot have " + std::to_string(cluster.neuron_cores_per_node) +
                " NeuronCores: pass 0 for nodes without Neuron devices");
  }
}

// "bert_tiny-7" for runs/bert_tiny-7, runs/bert_tiny-7/ and "." inside it.
std::filesystem::path run_dir_name(const std::filesystem::path& run_dir) {
  auto normal = std::filesystem::absolute(run_dir).lexically_normal();
  if (!normal.has_filename()) normal = normal.parent_path();
  return normal.filename();
}

// Placeholders through which a command finds an earlier job's checkpoints or learns that it
// continues one.
bool takes_checkpoint_placeholder(const std::vector<std::string>& command) {
  for (const auto& word : command) {
    for (const auto& name : placeholders_in(word)) {
      if (name == "run_dir" || name == "checkpoint_dir" || name == "checkpoint_uri" ||
          name == "resume")
        return true;
    }
  }
  return false;
}

std::optional<double> scaled_lr(const Profile& profile, double batch_factor) {
  if (!profile.lr) {
    if (profile.scaling == Scaling::kWeak && profile.lr_scaling != LrRule::kNone) {
      throw Error(where(profile) + ": lr_scaling is " + std::string(to_string(profile.lr_scaling)) +
                  " but the profile sets no lr to scale: set lr, or lr_scaling: none");
    }
    return std::nullopt;
  }
  switch (profile.lr_scaling) {
    case LrRule::kNone:
      return profile.lr;
    case LrRule::kLinear:
      return *profile.lr * batch_factor;
    case LrRule::kSqrt:
      return *profile.lr * std::sqrt(batch_factor);
  }
  return profile.lr;
}

}  // namespace

PlaceholderValues placeholder_values(const Plan& plan, bool compile) {
  PlaceholderValues values;
  for (const auto& field : detail::plan_fields()) {
    if (field.placeholder.empty()) continue;
    // Values the profile may leave unset (lr, model, ...): a template that uses them fails,
    // naming the key.
    if (auto value = field.value(plan, compile)) {
      values.emplace(std::string(field.placeholder), std::move(*value));
    }
  }
  return values;
}

Plan make_plan(const Profile& profile, const PlanRequest& request) {
  check_complete(profile);
  const ClusterShape& cluster = request.cluster;
  check_cluster(profile, cluster);

  Plan plan;
  plan.profile = profile.name;
  plan.profile_file = profile.source;
  plan.job_id = cluster.job_id;
  plan.nodes = cluster.nodes;
  plan.node_list = cluster.node_names;
  plan.instance_type = cluster.instance_type;
  plan.neuron_devices = cluster.neuron_cores_per_node > 0;
  plan.workers_per_node =
      plan.neuron_devices ? cluster.neuron_cores_per_node : profile.cpu_workers_per_node;

  const Scale scale = scale_for(profile, plan.nodes, plan.workers_per_node);
  if (const auto why = unsupported_tensor_parallel(plan.instance_type, plan.workers_per_node,
                                                   profile.tensor_parallel);
      plan.neuron_devices && !why.empty() &&
      !trains_natively(profile.command, profile.worker_cores))
    throw Error("profile " + profile.name + ": " + why);
  plan.world_size = scale.world_size;
  plan.tensor_parallel = profile.tensor_parallel;
  plan.pipeline_parallel = profile.pipeline_parallel;
  plan.data_parallel = scale.data_parallel;
  plan.scaling = profile.scaling;
  plan.micro_batch = profile.micro_batch;
  plan.grad_accum = scale.grad_accum;
  plan.global_batch = scale.global_batch;
  plan.lr = scaled_lr(profile, scale.batch_factor);
  plan.lr_scaling = profile.lr_scaling;
  plan.reference_nodes = profile.reference_nodes;
  plan.reference_global_batch = profile.global_batch;
  plan.reference_lr = profile.lr;

  plan.steps = profile.steps;
  plan.warmup = profile.warmup;
  plan.seq_len = profile.seq_len;
  plan.optimizer = profile.optimizer;
  plan.model = expand_home(profile.model, request.home);
  plan.data = expand_home(profile.data, request.home);
  plan.seed = profile.seed;

  plan.launch = profile.launch;
  plan.worker_cores = profile.worker_cores;
  const bool per_core = profile.launch != LaunchMode::kTorchrun;  // mpirun: a task per worker
  plan.tasks_per_node = per_core ? plan.workers_per_node : 1;
  plan.processes_per_task = per_core ? 1 : plan.workers_per_node;

  plan.compile_steps = profile.compile_steps;
  plan.checkpoint_every = profile.checkpoint_every;
  plan.keep_checkpoints = profile.keep_checkpoints;
  plan.run_dir = request.run_dir.value_or(
      std::filesystem::path(expand_home(profile.output_root, request.home)) /
      (profile.name + "-" + (cluster.job_id ? std::to_string(*cluster.job_id) : request.run_name)));
  if (!profile.checkpoint_uri.empty()) plan.checkpoint_uri = profile.checkpoint_uri;
  if (!profile.checkpoint_local_dir.empty()) {
    plan.checkpoint_local_dir =
        std::filesystem::path(expand_home(profile.checkpoint_local_dir, request.home)) /
        run_dir_name(plan.run_dir);
  }
  plan.max_restarts = profile.max_restarts;
  plan.requeue = profile.requeue;
  plan.restarts_by_platform = request.restarts_by_platform;
  plan.spares_wanted = profile.spare_nodes;
  plan.hang_timeout_s = profile.hang_timeout;
  plan.straggler_window = profile.straggler_window;
  plan.replace_stragglers = profile.replace_stragglers;
  plan.forecast_model = profile.forecast_model;
  plan.resumable = takes_checkpoint_placeholder(profile.command);
  // A run directory that exists holds an earlier job's run (trn-run makes it only after
  // planning); one that cannot be looked at is taken as new.
  std::error_code unreadable;
  plan.resume = request.continues_run ||
                (request.run_dir_decides && std::filesystem::exists(plan.run_dir, unreadable));

  try {
    plan.command = render_command(profile.command, placeholder_values(plan, false));
    plan.compile_command = render_command(profile.command, placeholder_values(plan, true));
  } catch (const Error& e) {
    throw Error(where(profile) + ": command: " + e.what());
  }
  plan.command.insert(plan.command.end(), request.extra_args.begin(), request.extra_args.end());
  plan.compile_command.insert(plan.compile_command.end(), request.extra_args.begin(),
                              request.extra_args.end());
  const auto values = placeholder_values(plan, false);
  for (const auto& [name, value] : profile.env) {
    try {
      plan.env[name] = render_template(value, values);
    } catch (const Error& e) {
      throw Error(where(profile) + ": env." + name + ": " + e.what());
    }
  }
  // The profile's env wins: a user may point the trainer elsewhere.
  const auto train_variable = [&](std::string_view name, const std::optional<std::string>& value) {
    if (value && !profile.env.contains(std::string(name))) plan.train_env.emplace(name, *value);
  };
  train_variable(env::kTrnCheckpointUri, plan.checkpoint_uri);
  if (plan.checkpoint_local_dir) {
    train_variable(env::kTrnCheckpointLocalDir, plan.checkpoint_local_dir->string());
  }
  if (!profile.snapshot_every.empty())
    train_variable(env::kTrnSnapshotEvery, profile.snapshot_every);
  return plan;
}

}  // namespace trn::plan
