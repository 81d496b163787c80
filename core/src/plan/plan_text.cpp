#include <sstream>

#include "number_text.hpp"
#include "trn/plan/command_template.hpp"
#include "trn/plan/plan_report.hpp"

namespace trn::plan {
namespace {

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

}  // namespace

std::string render_plan_text(const Plan& plan) {
  std::ostringstream out;
  const auto row = [&out](const std::string& label, const std::string& value) {
    out << label << std::string(label.size() < 18 ? 18 - label.size() : 1, ' ') << value << '\n';
  };
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  row("profile",
      plan.profile + (plan.profile_file.empty() ? "" : " (" + plan.profile_file.string() + ")"));
  if (plan.job_id) row("job", std::to_string(*plan.job_id));
  row("nodes", n(plan.nodes) + node_names(plan.node_list));
  row("workers per node",
      n(plan.workers_per_node) +
          (plan.neuron_devices ? " NeuronCores"
                               : (plan.workers_per_node == 1 ? " CPU worker" : " CPU workers")));
  row("world size", n(plan.world_size) + " = tp " + n(plan.tensor_parallel) + " x pp " +
                        n(plan.pipeline_parallel) + " x dp " + n(plan.data_parallel));
  row("micro-batch", n(plan.micro_batch));
  row("accumulation", n(plan.grad_accum));
  row("global batch", n(plan.global_batch) + " = " + n(plan.micro_batch) + " x " +
                          n(plan.grad_accum) + " x " + n(plan.data_parallel) + " (" +
                          std::string(to_string(plan.scaling)) + " scaling)");
  row("learning rate", lr_text(plan));
  row("steps",
      n(plan.steps) + " (warmup " + n(plan.warmup) + ", compile " + n(plan.compile_steps) + ")");
  if (plan.seq_len) row("sequence length", n(*plan.seq_len));
  row("launch",
      std::string(to_string(plan.launch)) + ": " + n(plan.tasks_per_node) +
          (plan.tasks_per_node == 1 ? " task" : " tasks") + " per node" +
          (plan.processes_per_task > 1 ? ", " + n(plan.processes_per_task) + " processes each"
                                       : ""));
  row("checkpoints",
      (plan.checkpoint_every > 0 ? "every " + n(plan.checkpoint_every) + " steps"
                                 : std::string("at the end")) +
          ", keep " + (plan.keep_checkpoints > 0 ? n(plan.keep_checkpoints) : std::string("all")));
  row("restarts",
      "up to " + n(plan.max_restarts) + ", requeue on " + std::string(to_string(plan.requeue)));
  row("run dir", plan.run_dir.string());
  row("command", display_command(plan.command));
  for (const auto& [name, value] : plan.env) row("env", name + "=" + value);
  return out.str();
}

}  // namespace trn::plan
