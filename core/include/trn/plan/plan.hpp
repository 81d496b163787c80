#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trn/plan/cluster_shape.hpp"
#include "trn/plan/command_template.hpp"
#include "trn/plan/profile.hpp"

namespace trn::plan {

struct PlanRequest {
  ClusterShape cluster;
  std::vector<std::string> extra_args;  // trainer arguments after `--`, appended to the command
  // Default: <output_root>/<profile>-<job id>, else <output_root>/<profile>-<run_name>.
  std::optional<std::filesystem::path> run_dir;
  // Names the run directory where no Slurm job id does: the launcher's job (AWS Batch's job id,
  // SageMaker's training job), the same on every node and every retry of the job.
  std::string run_name = "local";
  // Expands a leading "~/" in data, output_root and checkpoint_local_dir; empty: left as written.
  std::string home;
  // This job continues an earlier run: trn-run --resume, or Slurm requeued it. A run directory
  // that already exists counts too (make_plan looks) unless !run_dir_decides: where every node
  // plans for itself, the main node may have made the folder a moment before another looks.
  bool continues_run = false;
  bool run_dir_decides = true;
  // trn-run starts its own node's workers (one instance, Batch, SageMaker, mpirun): nothing
  // restarts inside the job; a failure exits 5 and the platform's retry restarts it.
  bool restarts_by_platform = false;
};

// Everything trn-run and trn-compile do follows from this; it is written to plan.json.
struct Plan {
  std::string profile;
  std::filesystem::path profile_file;
  std::optional<std::uint32_t> job_id;

  std::int64_t nodes = 0;
  std::vector<std::string> node_list;  // empty when planned without an allocation
  // The job's nodes left out of every step (unhealthy: trn-run's health gate drained them).
  std::vector<std::string> excluded_nodes;
  std::string instance_type;    // the nodes' EC2 type, as the plan knew it ("": unknown)
  bool neuron_devices = false;  // workers are NeuronCores (else CPU workers)
  std::int64_t workers_per_node = 0;
  std::int64_t world_size = 0;  // nodes * workers_per_node = tp * pp * dp
  std::int64_t tensor_parallel = 1;
  std::int64_t pipeline_parallel = 1;
  std::int64_t data_parallel = 0;

  Scaling scaling = Scaling::kStrong;
  std::int64_t micro_batch = 0;
  std::int64_t grad_accum = 0;
  std::int64_t global_batch = 0;  // micro_batch * grad_accum * data_parallel
  std::optional<double> lr;       // after the weak-scaling rule
  LrRule lr_scaling = LrRule::kNone;
  std::int64_t reference_nodes = 1;
  std::int64_t reference_global_batch = 0;  // the profile's global_batch
  std::optional<double> reference_lr;       // the profile's lr

  std::int64_t steps = 0;
  std::int64_t warmup = 0;
  std::optional<std::int64_t> seq_len;
  std::string optimizer = "adamw";  // the profile's: adamw or lamb
  std::string model;
  std::string data;
  std::int64_t seed = 0;

  // per-core: tasks_per_node = workers_per_node, processes_per_task = 1.
  // torchrun: tasks_per_node = 1, processes_per_task = workers_per_node (--nproc_per_node).
  LaunchMode launch = LaunchMode::kPerCore;
  WorkerCores worker_cores = WorkerCores::kPerTask;  // the profile's, for torchrun's workers
  std::int64_t tasks_per_node = 0;
  std::int64_t processes_per_task = 0;

  std::int64_t compile_steps = 0;
  std::int64_t checkpoint_every = 0;
  std::int64_t keep_checkpoints = 0;
  std::filesystem::path run_dir;
  std::optional<std::string> checkpoint_uri;  // the profile's, for {checkpoint_uri}
  // This run's node-local checkpoint tier, the same path on every node:
  // <the profile's checkpoint_local_dir>/<run_dir's name>, so that runs never mix their
  // shards. For {checkpoint_local_dir}; none without the profile key.
  std::optional<std::filesystem::path> checkpoint_local_dir;
  // The command takes {run_dir}, {checkpoint_dir}, {checkpoint_uri} or {resume}: it can find
  // the checkpoints of an earlier job and continue from them (trn-run then offers --resume).
  bool resumable = true;
  bool resume = false;  // this job continues an earlier run (PlanRequest::continues_run), {resume}
  std::int64_t max_restarts = 0;
  RequeuePolicy requeue = RequeuePolicy::kNodeFailure;
  bool restarts_by_platform = false;  // PlanRequest::restarts_by_platform
  // Nodes of the job kept idle to replace a lost one (trn-run fills it in: the job's last
  // nodes); the watchdog's settings (docs/recovery.md).
  std::vector<std::string> spare_nodes;
  std::int64_t spares_wanted = 0;
  std::int64_t hang_timeout_s = 0;
  std::int64_t straggler_window = 0;
  bool replace_stragglers = false;
  std::string forecast_model;  // the profile's, for the forecast ("": none)

  // What each worker process runs: the training command, and the same for the compile phase
  // where {steps_this_run} is compile_steps instead of steps.
  std::vector<std::string> command;
  std::vector<std::string> compile_command;
  std::map<std::string, std::string> env;  // the profile's env, rendered
  // The checkpoint tiers for the training step only (TRN_CHECKPOINT_URI,
  // TRN_CHECKPOINT_LOCAL_DIR), where the profile sets them and its env does not: the bundled
  // trainer reads them, so its command needs no checkpoint flags. The compile phase goes
  // without: it writes no checkpoints, and its manifest key stays the same for every run.
  std::map<std::string, std::string> train_env;
};

// The plan for a profile on a cluster. Throws trn::Error when the profile lacks a required key,
// when tp * pp does not divide the workers, when strong scaling leaves no whole accumulation
// (listing the node counts that work) and when a template uses a placeholder without a value.
Plan make_plan(const Profile& profile, const PlanRequest& request);

// The node counts in 1..max_nodes on which `profile` plans with `workers_per_node` workers
// each: tp * pp divides the workers and, for strong scaling, the accumulation is whole.
std::vector<std::int64_t> feasible_node_counts(const Profile& profile,
                                               std::int64_t workers_per_node,
                                               std::int64_t max_nodes);

// The values the command and env templates see, by placeholder name; `compile` selects the
// compile phase's {steps_this_run}.
PlaceholderValues placeholder_values(const Plan& plan, bool compile);

}  // namespace trn::plan
