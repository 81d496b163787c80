#include "profile_fields.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "number_text.hpp"
#include "profile_choices.hpp"
#include "trn/common/error.hpp"
#include "trn/forecast/model_shape.hpp"
#include "trn/forecast/step_model.hpp"
#include "trn/pcluster/node_features.hpp"
#include "trn/plan/command_template.hpp"

namespace trn::plan {
namespace {

// Above `maximum` the problem names the range; below `minimum`, the field's own message.
std::string too_large(std::string_view text, std::int64_t minimum, std::int64_t maximum) {
  return "'" + std::string(text) + "' is out of range: give a whole number from " +
         std::to_string(minimum) + " to " + std::to_string(maximum);
}

template <std::int64_t Profile::*member, std::int64_t minimum, std::int64_t maximum>
bool set_whole(Profile& profile, std::string_view text, std::string& problem) {
  const auto value = parse_whole_number(text);
  if (!value || *value < minimum) return false;
  if (*value > maximum) {
    problem = too_large(text, minimum, maximum);
    return false;
  }
  profile.*member = *value;
  return true;
}

template <std::string Profile::*member, bool allow_empty>
bool set_text(Profile& profile, std::string_view text, std::string&) {
  if (!allow_empty && text.empty()) return false;
  profile.*member = std::string(text);
  return true;
}

template <bool Profile::*member>
bool set_flag(Profile& profile, std::string_view text, std::string&) {
  if (text != "true" && text != "false") return false;
  profile.*member = text == "true";
  return true;
}

template <typename Enum, std::size_t count>
bool set_choice(Enum& target, std::string_view text, const EnumNames<Enum, count>& names) {
  const auto value = value_named(names, text);
  if (value) target = *value;
  return value.has_value();
}

bool set_seq_len(Profile& profile, std::string_view text, std::string& problem) {
  const auto value = parse_whole_number(text);
  if (!value || *value < 1) return false;
  if (*value > kMaxSequences) {
    problem = too_large(text, 1, kMaxSequences);
    return false;
  }
  profile.seq_len = *value;
  return true;
}

bool set_lr(Profile& profile, std::string_view text, std::string&) {
  const auto value = parse_real(text);
  if (!value || *value <= 0) return false;
  profile.lr = *value;
  return true;
}

bool set_scaling(Profile& profile, std::string_view text, std::string&) {
  return set_choice(profile.scaling, text, scaling_names);
}

bool set_lr_scaling(Profile& profile, std::string_view text, std::string&) {
  return set_choice(profile.lr_scaling, text, lr_rule_names);
}

bool set_launch(Profile& profile, std::string_view text, std::string&) {
  return set_choice(profile.launch, text, launch_mode_names);
}

bool set_worker_cores(Profile& profile, std::string_view text, std::string&) {
  return set_choice(profile.worker_cores, text, worker_cores_names);
}

bool set_requeue(Profile& profile, std::string_view text, std::string&) {
  return set_choice(profile.requeue, text, requeue_policy_names);
}

bool set_command(Profile& profile, std::string_view text, std::string& problem) {
  std::vector<std::string> words;
  try {
    words = split_command_words(text);
  } catch (const Error& e) {
    problem = e.what();
    return false;
  }
  if (words.empty()) {
    problem = "command is empty: give the training command, e.g. 'python3 train.py'";
    return false;
  }
  problem = check_command_words(words);
  if (!problem.empty()) return false;
  profile.command = std::move(words);
  return true;
}

bool set_instance_type(Profile& profile, std::string_view text, std::string&) {
  if (!pcluster::is_instance_type_name(text)) return false;
  profile.instance_type = std::string(text);
  return true;
}

bool set_checkpoint_uri(Profile& profile, std::string_view text, std::string&) {
  if (text.size() <= 5 || text.substr(0, 5) != "s3://" || text[5] == '/') return false;
  profile.checkpoint_uri = std::string(text);
  return true;
}

// Absolute, or under the home directory: a relative folder would be relative to the job's
// working directory, which is on the shared file system, not on the node's own disk.
bool set_checkpoint_local_dir(Profile& profile, std::string_view text, std::string&) {
  if (!text.starts_with('/') && !text.starts_with("~/")) return false;
  profile.checkpoint_local_dir = std::string(text);
  return true;
}

// "auto" or a whole number of steps: the trainer's --snapshot-every accepts both.
bool set_snapshot_every(Profile& profile, std::string_view text, std::string&) {
  const auto steps = parse_whole_number(text);
  if (text != "auto" && (!steps || *steps < 0 || *steps > kMaxCount)) return false;
  profile.snapshot_every = std::string(text);
  return true;
}

// The trainer's --optimizer choices, each of which the forecast prices.
bool set_optimizer(Profile& profile, std::string_view text, std::string&) {
  if (!forecast::priced_optimizer(text)) return false;
  profile.optimizer = std::string(text);
  return true;
}

// The names are those of forecast::model_shape_names(); the accepted text below lists them.
bool set_forecast_model(Profile& profile, std::string_view text, std::string&) {
  if (!text.empty() && forecast::find_model_shape(text) == nullptr) return false;
  profile.forecast_model = std::string(text);
  return true;
}

bool is_env_name(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

constexpr std::string_view whole_1 = "a whole number >= 1";
constexpr std::string_view whole_0 = "a whole number >= 0";

}  // namespace

const std::vector<Field>& scalar_fields() {
  using P = Profile;
  static const std::vector<Field> fields{
      {{"description", "any text", "what the profile is for"}, set_text<&P::description, true>},
      {{"command", "a command line or a list of words",
        "the training command each worker runs, with {placeholders}"},
       set_command},
      {{"model", "any text", "the model, for {model}: a name or a path"},
       set_text<&P::model, true>},
      {{"data", "a path", "the training data directory, for {data}"}, set_text<&P::data, true>},
      {{"seq_len", whole_1, "sequence length, for {seq_len}"}, set_seq_len},
      {{"optimizer", "adamw or lamb",
        "the optimizer, for {optimizer} and the forecast (default adamw)"},
       set_optimizer},
      {{"micro_batch", whole_1, "sequences per worker per micro-step"},
       set_whole<&P::micro_batch, 1, kMaxSequences>},
      {{"global_batch", whole_1, "sequences per optimizer step over all workers"},
       set_whole<&P::global_batch, 1, kMaxCount>},
      {{"scaling", "strong or weak",
        "strong: fixed global batch, the accumulation shrinks with more workers; weak: fixed "
        "accumulation, the global batch grows"},
       set_scaling},
      {{"lr", "a number > 0", "peak learning rate at the reference size"}, set_lr},
      {{"lr_scaling", "none, linear or sqrt",
        "weak scaling: lr times k or sqrt(k), k = global batch / the profile's global_batch"},
       set_lr_scaling},
      {{"reference_nodes", whole_1, "weak scaling: the node count global_batch and lr are for"},
       set_whole<&P::reference_nodes, 1, kMaxProfileNodes>},
      {{"steps", whole_1, "optimizer steps in total"}, set_whole<&P::steps, 1, kMaxCount>},
      {{"warmup", whole_0, "learning-rate warm-up steps"}, set_whole<&P::warmup, 0, kMaxCount>},
      {{"checkpoint_every", whole_0, "steps between checkpoints (0: only at the end)"},
       set_whole<&P::checkpoint_every, 0, kMaxCount>},
      {{"keep_checkpoints", whole_0, "newest checkpoints kept (0: all)"},
       set_whole<&P::keep_checkpoints, 0, kMaxCount>},
      {{"compile_steps", whole_1, "steps the compile phase runs"},
       set_whole<&P::compile_steps, 1, kMaxCount>},
      {{"seed", whole_0, "random seed, for {seed}"}, set_whole<&P::seed, 0, kMaxSeed>},
      {{"launch", "per-core, torchrun or mpirun",
        "per-core: one Slurm task per worker; torchrun: one task per node starting its workers; "
        "mpirun: one task per worker, all of them one MPI job (srun --mpi=pmix)"},
       set_launch},
      {{"worker_cores", "per-task or per-worker",
        "launch: torchrun: each worker sees its task's NeuronCores (per-task, torch-xla) or only "
        "its own, the LOCAL_RANK-th of them (per-worker, TorchNeuron)"},
       set_worker_cores},
      {{"tensor_parallel", whole_1, "tensor-parallel degree"},
       set_whole<&P::tensor_parallel, 1, kMaxDegree>},
      {{"pipeline_parallel", whole_1, "pipeline-parallel degree"},
       set_whole<&P::pipeline_parallel, 1, kMaxDegree>},
      {{"cpu_workers_per_node", whole_1, "workers per node on nodes without Neuron devices"},
       set_whole<&P::cpu_workers_per_node, 1, kMaxDegree>},
      {{"instance_type", "an EC2 instance type, e.g. trn1.32xlarge",
        "the compute nodes' type; plans made away from them (--plan on a head node) assume it"},
       set_instance_type},
      {{"output_root", "a path", "where run directories <profile>-<job id> are made"},
       set_text<&P::output_root, false>},
      {{"checkpoint_uri", "s3://bucket/prefix",
        "an object store that also keeps the checkpoints, for {checkpoint_uri}"},
       set_checkpoint_uri},
      {{"checkpoint_local_dir", "an absolute path or ~/path on the nodes' own disk",
        "e.g. /scratch/trn-checkpoints on the instance-store NVMe: each run's node-local "
        "checkpoint tier is <checkpoint_local_dir>/<run directory's name>, for "
        "{checkpoint_local_dir}"},
       set_checkpoint_local_dir},
      {{"snapshot_every", "auto or a whole number >= 0",
        "steps between peer snapshots: each rank's shard kept in its node-local tier and the next "
        "node's, so a lost node redoes at most that many steps (0: none; auto: every step while "
        "that costs under 1% of one; needs checkpoint_local_dir, best a tmpfs such as /dev/shm)"},
       set_snapshot_every},
      {{"max_restarts", whole_0, "times a failed job is requeued"},
       set_whole<&P::max_restarts, 0, kMaxCount>},
      {{"requeue", "node-failure, always or never", "which failures requeue the job"}, set_requeue},
      {{"spare_nodes", whole_0,
        "nodes of the job kept idle to replace a lost, hung or straggling one without a requeue"},
       set_whole<&P::spare_nodes, 0, kMaxProfileNodes>},
      {{"hang_timeout", whole_1,
        "least seconds without a completed step before the watchdog calls the step hung (it also "
        "waits 5 median steps)"},
       set_whole<&P::hang_timeout, 1, kMaxCount>},
      {{"straggler_window", whole_1, "steps per window a straggler is judged over"},
       set_whole<&P::straggler_window, 1, kMaxCount>},
      {{"replace_stragglers", "true or false",
        "swap a straggling node (3 windows above 1.15x the median) for a spare"},
       set_flag<&P::replace_stragglers>},
      {{"forecast_model",
        "bert-tiny, bert-mini, bert-base, bert-large, llama2-7b, llama2-13b or llama2-70b",
        "the model's architecture, for the throughput, time and cost forecast of the plan "
        "(docs/planner.md)"},
       set_forecast_model},
  };
  return fields;
}

const Field* find_field(std::string_view key) {
  for (const auto& field : scalar_fields()) {
    if (field.doc.key == key) return &field;
  }
  return nullptr;
}

std::vector<std::string_view> all_key_names() {
  std::vector<std::string_view> names;
  for (const auto& field : scalar_fields()) names.push_back(field.doc.key);
  names.emplace_back("env");
  return names;
}

std::string wrong_value(const Field& field, std::string_view text) {
  return std::string(field.doc.key) + " must be " + std::string(field.doc.accepts) + " (" +
         std::string(field.doc.meaning) + "), got '" + std::string(text) + "'";
}

std::string set_env_entry(Profile& profile, std::string_view name, std::string_view value) {
  if (!is_env_name(name)) {
    return "env name '" + std::string(name) +
           "' is not a variable name: use letters, digits and '_', not starting with a digit";
  }
  try {
    placeholders_in(value);
  } catch (const Error& e) {
    return "env." + std::string(name) + ": " + e.what();
  }
  profile.env[std::string(name)] = std::string(value);
  return "";
}

std::string check_command_words(const std::vector<std::string>& words) {
  try {
    for (const auto& word : words) placeholders_in(word);
  } catch (const Error& e) {
    return std::string("command: ") + e.what();
  }
  return "";
}

const std::vector<ProfileKey>& profile_keys() {
  static const std::vector<ProfileKey> keys = [] {
    std::vector<ProfileKey> v;
    for (const auto& field : scalar_fields()) v.push_back(field.doc);
    v.push_back({"env", "a mapping NAME: value",
                 "extra environment for every worker; values may use {placeholders}"});
    return v;
  }();
  return keys;
}

}  // namespace trn::plan
