#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trn::plan {

// strong: the global batch stays fixed and the accumulation shrinks as workers are added.
// weak: the accumulation stays fixed and the global batch grows with the data-parallel degree.
enum class Scaling { kStrong, kWeak };

// How the learning rate follows the global batch under weak scaling (see Profile::lr_scaling).
enum class LrRule { kNone, kLinear, kSqrt };

// per-core: one Slurm task per worker. torchrun: one Slurm task per node that starts the
// node's workers itself (torchrun --nproc_per_node).
// per-core: one task per worker; torchrun: one task per node, torchrun starting its workers;
// mpirun: one task per worker as per-core, the tasks one MPI job (srun --mpi=pmix).
enum class LaunchMode { kPerCore, kTorchrun, kMpirun };

// Which NeuronCores each worker that torchrun starts sees (launch: torchrun only).
// per-task: the task's whole range, as the task was given it; torch-xla (the trn1 path) takes
// its local rank's core of that range itself. per-worker: the LOCAL_RANK-th core of the range
// alone, set by trn-launcher neuron-worker before the worker starts; TorchNeuron (the native
// path on trn2/trn3) needs it, as it keeps a range it finds set and then requires exactly one
// core per process (docs/hardware.md#torchneuron-world).
enum class WorkerCores { kPerTask, kPerWorker };

// When a failed training step requeues the job: only when a node failed (not on a user error
// such as the same Python exception on every rank), on any failure, or never.
enum class RequeuePolicy { kNodeFailure, kAlways, kNever };

// The spelling used in profiles, plan.json and messages: "strong", "sqrt", "per-core",
// "node-failure"...
std::string_view to_string(Scaling value);
std::string_view to_string(LrRule value);
std::string_view to_string(LaunchMode value);
std::string_view to_string(WorkerCores value);
std::string_view to_string(RequeuePolicy value);
// A requeue policy spelled as in profiles; trn::Error naming `what` and the choices otherwise.
RequeuePolicy parse_requeue_policy(std::string_view text, std::string_view what);

// A training recipe, independent of the cluster it runs on. The field names are the profile
// keys; profile_keys() documents each one.
struct Profile {
  std::string name;              // the bundled name or the file's stem; names the run directory
  std::filesystem::path source;  // the file it was read from (empty when built in code)
  std::string description;

  // The training command as a template, already split into words (see command_template.hpp).
  std::vector<std::string> command;
  std::string model;  // free text for {model}: a model name or a path
  std::string data;   // the data directory, for {data}
  std::optional<std::int64_t> seq_len;
  std::string optimizer = "adamw";  // adamw or lamb, for {optimizer} and the forecast

  std::int64_t micro_batch = 0;   // sequences per worker per micro-step (required)
  std::int64_t global_batch = 0;  // sequences per optimizer step over all workers (required)
  Scaling scaling = Scaling::kStrong;

  // The peak learning rate at the reference size. Under weak scaling the global batch on
  // N nodes is k times the profile's global_batch, k = dp(N) / dp(reference_nodes), and the
  // learning rate becomes lr (none), lr * k (linear) or lr * sqrt(k) (sqrt). Under strong
  // scaling k is 1, so the rule changes nothing.
  std::optional<double> lr;
  LrRule lr_scaling = LrRule::kNone;
  // Weak scaling: the node count at which global_batch and lr hold; the accumulation is
  // global_batch / (micro_batch * dp(reference_nodes)) and stays fixed on every node count.
  std::int64_t reference_nodes = 1;

  std::int64_t steps = 0;  // optimizer steps in total (required)
  std::int64_t warmup = 0;
  std::int64_t checkpoint_every = 0;  // 0: only at the end
  std::int64_t keep_checkpoints = 3;  // 0: keep all
  std::int64_t compile_steps = 5;     // steps the compile phase runs (the reference: 5)
  std::int64_t seed = 12345;

  LaunchMode launch = LaunchMode::kPerCore;
  WorkerCores worker_cores = WorkerCores::kPerTask;
  std::int64_t tensor_parallel = 1;
  std::int64_t pipeline_parallel = 1;
  std::int64_t cpu_workers_per_node = 1;  // workers on nodes without Neuron devices
  // The compute nodes' EC2 instance type the profile is made for (e.g. trn1.32xlarge); a plan
  // made where no allocation says it (`trn-run --plan` on a head node) assumes it. Empty: none.
  std::string instance_type;

  std::string output_root = "runs";  // run directories go to <output_root>/<name>-<job id>
  std::string checkpoint_uri;        // s3://bucket/prefix for {checkpoint_uri}; "": none
  // A folder on each node's own disk (the instance-store NVMe) under which every run writes its
  // checkpoint shards first; absolute or "~/...". "": no node-local tier.
  std::string checkpoint_local_dir;
  // Steps between peer snapshots (docs/checkpoints.md#peers): "auto", or a whole number >= 0
  // (0: none). "": the trainer's default (auto with a node-local tier).
  std::string snapshot_every;
  std::int64_t max_restarts = 3;
  RequeuePolicy requeue = RequeuePolicy::kNodeFailure;
  // Recovery inside the allocation (docs/recovery.md): nodes of the job kept idle to replace a
  // lost one; the least seconds without progress before the watchdog calls the step hung (it
  // also waits 5 median steps); steps per straggler window; and whether a straggler is swapped
  // for a spare.
  std::int64_t spare_nodes = 0;
  std::int64_t hang_timeout = 180;
  std::int64_t straggler_window = 10;
  bool replace_stragglers = false;
  // The model's architecture for trn-run's throughput, time and cost forecast ("bert-large",
  // "llama2-7b", ...: trn::forecast::model_shape_names()); "": no forecast.
  std::string forecast_model;

  // Extra environment for every worker; values are templates like the command.
  std::map<std::string, std::string> env;
};

// Throws trn::Error naming the first required key the profile lacks (command, micro_batch,
// global_batch, steps), or a count below 1 that the plan would divide by.
void check_complete(const Profile& profile);

}  // namespace trn::plan
