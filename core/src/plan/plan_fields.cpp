#include "plan_fields.hpp"

#include <algorithm>
#include <map>

#include "number_text.hpp"
#include "trn/plan/command_template.hpp"

namespace trn::plan::detail {
namespace {

using Rows = std::vector<std::string>;
using Value = std::optional<std::string>;

std::string n(std::int64_t value) { return std::to_string(value); }

template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string node_names(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  // A long list helps nobody in a table: first and last, as Slurm's own summaries do.
  if (names.size() > 4) return " (" + names.front() + ", ..., " + names.back() + ")";
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return " (" + out + ")";
}

std::string lr_text(const Plan& plan) {
  if (!plan.lr) return "not set";
  std::string text = format_real(*plan.lr);
  if (plan.scaling == Scaling::kWeak && plan.lr_scaling != LrRule::kNone && plan.reference_lr) {
    text += " (" + std::string(to_string(plan.lr_scaling)) + " rule from " +
            format_real(*plan.reference_lr) + " at global batch " +
            std::to_string(plan.reference_global_batch) + ")";
  }
  return text;
}

// "NAME=value<note>" for each variable.
Rows env_rows(const std::map<std::string, std::string>& env, std::string_view note) {
  Rows rows;
  for (const auto& [name, value] : env) {
    std::string row = name;
    row.append("=").append(value).append(note);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<PlanField> all_fields() {
  return {
      {.json_key = "profile",
       .json = [](const Plan& p) { return nlohmann::json(p.profile); },
       .placeholder = "profile",
       .value = [](const Plan& p, bool) -> Value { return p.profile; },
       .label = "profile",
       .rows = [](const Plan& p) -> Rows {
         return {p.profile + (p.profile_file.empty() ? "" : " (" + p.profile_file.string() + ")")};
       }},
      {.json_key = "profile_file",
       .json = [](const Plan& p) { return nlohmann::json(p.profile_file.string()); }},
      {.json_key = "job_id",
       .json = [](const Plan& p) { return or_null(p.job_id); },
       .label = "job",
       .rows = [](const Plan& p) -> Rows {
         if (!p.job_id) return {};
         return {std::to_string(*p.job_id)};
       }},
      {.json_key = "nodes",
       .json = [](const Plan& p) { return nlohmann::json(p.nodes); },
       .compile_input = true,
       .placeholder = "nodes",
       .value = [](const Plan& p, bool) -> Value { return n(p.nodes); },
       .label = "nodes",
       .rows = [](const Plan& p) -> Rows {
         if (!p.node_list.empty()) return {n(p.nodes) + node_names(p.node_list)};
         // Planned without an allocation (trn-run --plan --nodes N on a head node).
         return {n(p.nodes) + (p.instance_type.empty() ? "" : " x " + p.instance_type) +
                 " (planned: no job shows the nodes)"};
       }},
      {.json_key = "node_list", .json = [](const Plan& p) { return nlohmann::json(p.node_list); }},
      {.json_key = "instance_type",
       .json =
           [](const Plan& p) {
             return p.instance_type.empty() ? nlohmann::json(nullptr)
                                            : nlohmann::json(p.instance_type);
           },
       .label = "instance type",
       .rows = [](const Plan& p) -> Rows {
         if (p.instance_type.empty()) return {};
         return {p.instance_type};
       }},
      {.json_key = "neuron_devices",
       .json = [](const Plan& p) { return nlohmann::json(p.neuron_devices); },
       .compile_input = true},
      {.json_key = "workers_per_node",
       .json = [](const Plan& p) { return nlohmann::json(p.workers_per_node); },
       .compile_input = true,
       .placeholder = "workers_per_node",
       .value = [](const Plan& p, bool) -> Value { return n(p.workers_per_node); },
       .label = "workers per node",
       .rows = [](const Plan& p) -> Rows {
         return {n(p.workers_per_node) +
                 (p.neuron_devices ? " NeuronCores"
                                   : (p.workers_per_node == 1 ? " CPU worker" : " CPU workers"))};
       }},
      {.json_key = "world_size",
       .json = [](const Plan& p) { return nlohmann::json(p.world_size); },
       .placeholder = "world_size",
       .value = [](const Plan& p, bool) -> Value { return n(p.world_size); },
       .label = "world size",
       .rows = [](const Plan& p) -> Rows {
         return {n(p.world_size) + " = tp " + n(p.tensor_parallel) + " x pp " +
                 n(p.pipeline_parallel) + " x dp " + n(p.data_parallel)};
       }},
      {.json_key = "tensor_parallel",
       .json = [](const Plan& p) { return nlohmann::json(p.tensor_parallel); },
       .compile_input = true,
       .placeholder = "tp",
       .value = [](const Plan& p, bool) -> Value { return n(p.tensor_parallel); }},
      {.json_key = "pipeline_parallel",
       .json = [](const Plan& p) { return nlohmann::json(p.pipeline_parallel); },
       .compile_input = true,
       .placeholder = "pp",
       .value = [](const Plan& p, bool) -> Value { return n(p.pipeline_parallel); }},
      {.json_key = "data_parallel",
       .json = [](const Plan& p) { return nlohmann::json(p.data_parallel); },
       .compile_input = true,
       .placeholder = "dp",
       .value = [](const Plan& p, bool) -> Value { return n(p.data_parallel); }},
      {.json_key = "scaling",
       .json = [](const Plan& p) { return nlohmann::json(std::string(to_string(p.scaling))); }},
      {.json_key = "micro_batch",
       .json = [](const Plan& p) { return nlohmann::json(p.micro_batch); },
       .compile_input = true,
       .placeholder = "micro_batch",
       .value = [](const Plan& p, bool) -> Value { return n(p.micro_batch); },
       .label = "micro-batch",
       .rows = [](const Plan& p) -> Rows { return {n(p.micro_batch)}; }},
      {.json_key = "grad_accum",
       .json = [](const Plan& p) { return nlohmann::json(p.grad_accum); },
       .compile_input = true,
       .placeholder = "grad_accum",
       .value = [](const Plan& p, bool) -> Value { return n(p.grad_accum); },
       .label = "accumulation",
       .rows = [](const Plan& p) -> Rows { return {n(p.grad_accum)}; }},
      {.json_key = "global_batch",
       .json = [](const Plan& p) { return nlohmann::json(p.global_batch); },
       .placeholder = "global_batch",
       .value = [](const Plan& p, bool) -> Value { return n(p.global_batch); },
       .label = "global batch",
       .rows = [](const Plan& p) -> Rows {
         return {n(p.global_batch) + " = " + n(p.micro_batch) + " x " + n(p.grad_accum) + " x " +
                 n(p.data_parallel) + " (" + std::string(to_string(p.scaling)) + " scaling)"};
       }},
      {.json_key = "lr",
       .json = [](const Plan& p) { return or_null(p.lr); },
       .placeholder = "lr",
       .value = [](const Plan& p, bool) -> Value {
         if (!p.lr) return std::nullopt;
         return format_real(*p.lr);
       },
       .label = "learning rate",
       .rows = [](const Plan& p) -> Rows { return {lr_text(p)}; }},
      {.json_key = "lr_scaling",
       .json = [](const Plan& p) { return nlohmann::json(std::string(to_string(p.lr_scaling))); }},
      {.json_key = "reference_nodes",
       .json = [](const Plan& p) { return nlohmann::json(p.reference_nodes); }},
      {.json_key = "reference_global_batch",
       .json = [](const Plan& p) { return nlohmann::json(p.reference_global_batch); }},
      {.json_key = "reference_lr", .json = [](const Plan& p) { return or_null(p.reference_lr); }},
      {.json_key = "steps",
       .json = [](const Plan& p) { return nlohmann::json(p.steps); },
       .placeholder = "steps",
       .value = [](const Plan& p, bool) -> Value { return n(p.steps); },
       .label = "steps",
       .rows = [](const Plan& p) -> Rows {
         return {n(p.steps) + " (warmup " + n(p.warmup) + ", compile " + n(p.compile_steps) + ")"};
       }},
      // The compile phase runs compile_steps (at most steps) to trace every graph.
      {.placeholder = "steps_this_run",
       .value = [](const Plan& p, bool compile) -> Value {
         return n(compile ? std::min(p.compile_steps, p.steps) : p.steps);
       }},
      {.json_key = "warmup",
       .json = [](const Plan& p) { return nlohmann::json(p.warmup); },
       .placeholder = "warmup",
       .value = [](const Plan& p, bool) -> Value { return n(p.warmup); }},
      {.json_key = "seq_len",
       .json = [](const Plan& p) { return or_null(p.seq_len); },
       .compile_input = true,
       .placeholder = "seq_len",
       .value = [](const Plan& p, bool) -> Value {
         if (!p.seq_len) return std::nullopt;
         return n(*p.seq_len);
       },
       .label = "sequence length",
       .rows = [](const Plan& p) -> Rows {
         if (!p.seq_len) return {};
         return {n(*p.seq_len)};
       }},
      {.json_key = "optimizer",
       .json = [](const Plan& p) { return nlohmann::json(p.optimizer); },
       .compile_input = true,
       .placeholder = "optimizer",
       .value = [](const Plan& p, bool) -> Value { return p.optimizer; }},
      {.json_key = "model",
       .json = [](const Plan& p) { return nlohmann::json(p.model); },
       .placeholder = "model",
       .value = [](const Plan& p, bool) -> Value {
         if (p.model.empty()) return std::nullopt;
         return p.model;
       }},
      {.json_key = "data",
       .json = [](const Plan& p) { return nlohmann::json(p.data); },
       .placeholder = "data",
       .value = [](const Plan& p, bool) -> Value {
         if (p.data.empty()) return std::nullopt;
         return p.data;
       }},
      {.json_key = "seed",
       .json = [](const Plan& p) { return nlohmann::json(p.seed); },
       .placeholder = "seed",
       .value = [](const Plan& p, bool) -> Value { return n(p.seed); }},
      {.json_key = "launch_mode",
       .json = [](const Plan& p) { return nlohmann::json(std::string(to_string(p.launch))); },
       .compile_input = true,
       .label = "launch",
       .rows = [](const Plan& p) -> Rows {
         return {
             std::string(to_string(p.launch)) + ": " + n(p.tasks_per_node) +
             (p.tasks_per_node == 1 ? " task" : " tasks") + " per node" +
             (p.processes_per_task > 1 ? ", " + n(p.processes_per_task) + " processes each" : "") +
             (p.processes_per_task > 1 && p.neuron_devices &&
                      p.worker_cores == WorkerCores::kPerWorker
                  ? ", one NeuronCore per process"
                  : "")};
       }},
      {.json_key = "tasks_per_node",
       .json = [](const Plan& p) { return nlohmann::json(p.tasks_per_node); },
       .placeholder = "tasks_per_node",
       .value = [](const Plan& p, bool) -> Value { return n(p.tasks_per_node); }},
      {.json_key = "processes_per_task",
       .json = [](const Plan& p) { return nlohmann::json(p.processes_per_task); }},
      {.json_key = "compile_steps",
       .json = [](const Plan& p) { return nlohmann::json(p.compile_steps); },
       .placeholder = "compile_steps",
       .value = [](const Plan& p, bool) -> Value { return n(p.compile_steps); }},
      {.json_key = "checkpoint_every",
       .json = [](const Plan& p) { return nlohmann::json(p.checkpoint_every); },
       .placeholder = "checkpoint_every",
       .value = [](const Plan& p, bool) -> Value { return n(p.checkpoint_every); },
       .label = "checkpoints",
       .rows = [](const Plan& p) -> Rows {
         return {(p.checkpoint_every > 0 ? "every " + n(p.checkpoint_every) + " steps"
                                         : std::string("at the end")) +
                 ", keep " + (p.keep_checkpoints > 0 ? n(p.keep_checkpoints) : std::string("all"))};
       }},
      {.json_key = "keep_checkpoints",
       .json = [](const Plan& p) { return nlohmann::json(p.keep_checkpoints); },
       .placeholder = "keep_checkpoints",
       .value = [](const Plan& p, bool) -> Value { return n(p.keep_checkpoints); }},
      {.json_key = "max_restarts",
       .json = [](const Plan& p) { return nlohmann::json(p.max_restarts); },
       .label = "restarts",
       .rows = [](const Plan& p) -> Rows {
         if (p.restarts_by_platform) {
           return {
               "none in the job: a node or fabric failure exits 5, and the platform's retry "
               "(or running trn-run again) resumes from the newest checkpoint"};
         }
         return {"up to " + n(p.max_restarts) + ", requeue on " +
                 std::string(to_string(p.requeue))};
       }},
      {.json_key = "restarts_by_platform",
       .json = [](const Plan& p) { return nlohmann::json(p.restarts_by_platform); }},
      {.json_key = "requeue",
       .json = [](const Plan& p) { return nlohmann::json(std::string(to_string(p.requeue))); }},
      {.json_key = "spare_nodes",
       .json = [](const Plan& p) { return nlohmann::json(p.spare_nodes); },
       .label = "spares",
       .rows = [](const Plan& p) -> Rows {
         if (p.spares_wanted == 0) return {};
         std::string names;
         for (const auto& node : p.spare_nodes) names += (names.empty() ? "" : ", ") + node;
         return {n(p.spares_wanted) + " node(s) kept to replace a lost one in the job" +
                 (names.empty() ? "" : ": " + names)};
       }},
      {.json_key = "watchdog",
       .json =
           [](const Plan& p) {
             return nlohmann::json{{"hang_timeout_s", p.hang_timeout_s},
                                   {"straggler_window", p.straggler_window},
                                   {"replace_stragglers", p.replace_stragglers}};
           },
       .label = "watchdog",
       .rows = [](const Plan& p) -> Rows {
         return {"hung after " + n(p.hang_timeout_s) +
                 " s (or 5 median steps) without progress; "
                 "stragglers over " +
                 n(p.straggler_window) + "-step windows" +
                 (p.replace_stragglers ? ", replaced by a spare" : "")};
       }},
      {.json_key = "forecast_model",
       .json = [](const Plan& p) { return nlohmann::json(p.forecast_model); }},
      {.json_key = "run_dir",
       .json = [](const Plan& p) { return nlohmann::json(p.run_dir.string()); },
       .placeholder = "run_dir",
       .value = [](const Plan& p, bool) -> Value { return p.run_dir.string(); },
       .label = "run dir",
       .rows = [](const Plan& p) -> Rows { return {p.run_dir.string()}; }},
      // The checkpoints go to the run directory (the trainer's --output).
      {.placeholder = "checkpoint_dir",
       .value = [](const Plan& p, bool) -> Value { return p.run_dir.string(); }},
      {.json_key = "checkpoint_uri",
       .json =
           [](const Plan& p) {
             return p.checkpoint_uri ? nlohmann::json(*p.checkpoint_uri) : nlohmann::json(nullptr);
           },
       .placeholder = "checkpoint_uri",
       .value = [](const Plan& p, bool) -> Value { return p.checkpoint_uri; },
       .label = "checkpoint store",
       .rows = [](const Plan& p) -> Rows {
         return p.checkpoint_uri ? Rows{*p.checkpoint_uri} : Rows{};
       }},
      {.json_key = "checkpoint_local_dir",
       .json =
           [](const Plan& p) {
             return p.checkpoint_local_dir ? nlohmann::json(p.checkpoint_local_dir->string())
                                           : nlohmann::json(nullptr);
           },
       .placeholder = "checkpoint_local_dir",
       .value = [](const Plan& p, bool) -> Value {
         if (!p.checkpoint_local_dir) return std::nullopt;
         return p.checkpoint_local_dir->string();
       },
       .label = "local checkpoints",
       .rows = [](const Plan& p) -> Rows {
         if (!p.checkpoint_local_dir) return {};
         return {p.checkpoint_local_dir->string() + " on every node"};
       }},
      // The compile phase only traces graphs: it starts nothing over, and its manifest key must
      // not change when a job resumes.
      {.json_key = "resume",
       .json = [](const Plan& p) { return nlohmann::json(p.resume); },
       .placeholder = "resume",
       .value = [](const Plan& p, bool compile) -> Value {
         return std::string(p.resume && !compile ? "1" : "0");
       }},
      {.json_key = "resumable",
       .json = [](const Plan& p) { return nlohmann::json(p.resumable); },
       .label = "resume",
       .rows = [](const Plan& p) -> Rows {
         if (!p.resumable) {
           return {
               "no: the command takes none of {run_dir}, {checkpoint_dir}, {checkpoint_uri}, "
               "{resume}, so a job that stops early starts over"};
         }
         if (p.resume) return {"yes: this job continues the run in the run dir ({resume} is 1)"};
         return {};
       }},
      {.json_key = "command",
       .json = [](const Plan& p) { return nlohmann::json(p.command); },
       .label = "command",
       .rows = [](const Plan& p) -> Rows { return {display_command(p.command)}; }},
      {.json_key = "compile_command",
       .json = [](const Plan& p) { return nlohmann::json(p.compile_command); },
       .compile_input = true},
      {.json_key = "env",
       .json = [](const Plan& p) { return nlohmann::json(p.env); },
       .compile_input = true,
       .label = "env",
       .rows = [](const Plan& p) { return env_rows(p.env, ""); }},
      {.json_key = "train_env",
       .json = [](const Plan& p) { return nlohmann::json(p.train_env); },
       .label = "env",
       .rows = [](const Plan& p) { return env_rows(p.train_env, " (training step)"); }},
  };
}

}  // namespace

const std::vector<PlanField>& plan_fields() {
  static const std::vector<PlanField> fields = all_fields();
  return fields;
}

}  // namespace trn::plan::detail
