#include "trn/plan/profile.hpp"

#include <utility>

#include "profile_choices.hpp"
#include "profile_fields.hpp"
#include "trn/common/error.hpp"

namespace trn::plan {

std::string_view to_string(Scaling value) { return name_of(scaling_names, value); }
std::string_view to_string(LrRule value) { return name_of(lr_rule_names, value); }
std::string_view to_string(LaunchMode value) { return name_of(launch_mode_names, value); }
std::string_view to_string(WorkerCores value) { return name_of(worker_cores_names, value); }
std::string_view to_string(RequeuePolicy value) { return name_of(requeue_policy_names, value); }
RequeuePolicy parse_requeue_policy(std::string_view text, std::string_view what) {
  return parse_named(requeue_policy_names, text, what, "a requeue policy");
}

std::string missing_required(const Profile& profile) {
  const auto missing = [](const char* key, const char* what, const char* example) {
    return std::string("missing required key '") + key + "' (" + what + "); add e.g. '" + example +
           "'";
  };
  if (profile.command.empty()) {
    return missing("command", "the training command template",
                   "command: python3 train.py --batch {micro_batch}");
  }
  if (profile.micro_batch == 0) {
    return missing("micro_batch", "sequences per worker per micro-step", "micro_batch: 16");
  }
  if (profile.global_batch == 0) {
    return missing("global_batch", "sequences per optimizer step over all workers",
                   "global_batch: 16384");
  }
  if (profile.steps == 0) return missing("steps", "optimizer steps in total", "steps: 28125");
  // Profiles read from files or overridden cannot get here with a value out of range; one
  // built in code can, and the arithmetic divides by these.
  const std::pair<const char*, std::int64_t> at_least_one[] = {
      {"micro_batch", profile.micro_batch},
      {"global_batch", profile.global_batch},
      {"steps", profile.steps},
      {"compile_steps", profile.compile_steps},
      {"reference_nodes", profile.reference_nodes},
      {"tensor_parallel", profile.tensor_parallel},
      {"pipeline_parallel", profile.pipeline_parallel},
      {"cpu_workers_per_node", profile.cpu_workers_per_node}};
  for (const auto& [key, value] : at_least_one) {
    if (value < 1) {
      return std::string(key) + " must be a whole number >= 1, got " + std::to_string(value);
    }
  }
  return "";
}

void check_complete(const Profile& profile) {
  std::string problem = missing_required(profile);
  // The learning rate climbs to lr over the warm-up: a run shorter than that never trains at
  // the rate it asks for, and its losses compare with nothing.
  if (problem.empty() && profile.warmup > profile.steps) {
    problem = "warmup " + std::to_string(profile.warmup) + " is longer than the run's " +
              std::to_string(profile.steps) +
              " steps: the learning rate would never reach lr; give more steps (--steps) or a "
              "shorter warm-up (--set warmup=" +
              std::to_string(profile.steps) + ")";
  }
  if (problem.empty()) return;
  const std::string where =
      profile.source.empty() ? "profile '" + profile.name + "'" : profile.source.string();
  throw Error(where + ": " + problem);
}

}  // namespace trn::plan
