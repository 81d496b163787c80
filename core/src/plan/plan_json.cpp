#include "trn/plan/plan_report.hpp"

namespace trn::plan {
namespace {

template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// `text` with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

nlohmann::json compile_inputs(const Plan& plan) {
  const std::string run_dir = plan.run_dir.string();
  std::vector<std::string> command;
  for (const auto& word : plan.compile_command) {
    command.push_back(replace_all(word, run_dir, "{run_dir}"));
  }
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [name, value] : plan.env) env[name] = replace_all(value, run_dir, "{run_dir}");
  return {
      {"compile_command", command},
      {"env", env},
      {"neuron_devices", plan.neuron_devices},
      {"nodes", plan.nodes},
      {"workers_per_node", plan.workers_per_node},
      {"tensor_parallel", plan.tensor_parallel},
      {"pipeline_parallel", plan.pipeline_parallel},
      {"data_parallel", plan.data_parallel},
      {"micro_batch", plan.micro_batch},
      {"grad_accum", plan.grad_accum},
      {"seq_len", or_null(plan.seq_len)},
      {"launch_mode", std::string(to_string(plan.launch))},
  };
}

nlohmann::json to_json(const Plan& plan) {
  return {
      {"profile", plan.profile},
      {"profile_file", plan.profile_file.string()},
      {"job_id", or_null(plan.job_id)},
      {"nodes", plan.nodes},
      {"node_list", plan.node_list},
      {"neuron_devices", plan.neuron_devices},
      {"workers_per_node", plan.workers_per_node},
      {"world_size", plan.world_size},
      {"tensor_parallel", plan.tensor_parallel},
      {"pipeline_parallel", plan.pipeline_parallel},
      {"data_parallel", plan.data_parallel},
      {"scaling", std::string(to_string(plan.scaling))},
      {"micro_batch", plan.micro_batch},
      {"grad_accum", plan.grad_accum},
      {"global_batch", plan.global_batch},
      {"lr", or_null(plan.lr)},
      {"lr_scaling", std::string(to_string(plan.lr_scaling))},
      {"reference_nodes", plan.reference_nodes},
      {"reference_global_batch", plan.reference_global_batch},
      {"reference_lr", or_null(plan.reference_lr)},
      {"steps", plan.steps},
      {"warmup", plan.warmup},
      {"seq_len", or_null(plan.seq_len)},
      {"model", plan.model},
      {"data", plan.data},
      {"seed", plan.seed},
      {"launch_mode", std::string(to_string(plan.launch))},
      {"tasks_per_node", plan.tasks_per_node},
      {"processes_per_task", plan.processes_per_task},
      {"compile_steps", plan.compile_steps},
      {"checkpoint_every", plan.checkpoint_every},
      {"keep_checkpoints", plan.keep_checkpoints},
      {"run_dir", plan.run_dir.string()},
      {"max_restarts", plan.max_restarts},
      {"requeue", std::string(to_string(plan.requeue))},
      {"command", plan.command},
      {"compile_command", plan.compile_command},
      {"env", plan.env},
  };
}

}  // namespace trn::plan
