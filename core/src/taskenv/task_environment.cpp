#include "trn/taskenv/task_environment.hpp"

#include "trn/cache/compiler_flags.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/error.hpp"

namespace trn::taskenv {
namespace {

class Builder {
 public:
  Builder(const StepEnvironment& step, const EnvLookup& existing)
      : step_(step), existing_(existing) {}

  // The user's value, unless overriding.
  std::optional<std::string> user(const std::string& name) const {
    if (step_.override_user) return std::nullopt;
    return existing_(name);
  }

  void add(const StepEnvironment::Entry& entry) { add(entry.var, entry.user_wins); }

  void add(const EnvVar& var, bool user_wins) {
    if (user_wins) {
      if (const auto value = user(var.name)) {
        out.kept.push_back(var.name);
        if (*value != var.value && var.name == env::kNeuronRtVisibleCores) {
          out.warnings.push_back("NEURON_RT_VISIBLE_CORES=" + *value +
                                 " from the environment kept (trn-slurm placed this task on " +
                                 var.value + ")");
        }
        return;
      }
    }
    out.set.push_back(var);
  }

  TaskEnvironment out;

 private:
  const StepEnvironment& step_;
  const EnvLookup& existing_;
};

}  // namespace

TaskEnvironment task_environment(const StepEnvironment& step, const TaskIds& task,
                                 const EnvLookup& existing) {
  Builder b(step, existing);
  for (const auto& entry : step.common) b.add(entry);
  // Everything that names the rendezvous node follows a MASTER_ADDR the user set.
  const std::string host = b.user(std::string(env::kMasterAddr)).value_or(step.rendezvous_host);
  if (!step.root_comm_port.empty()) {
    b.add({std::string(env::kNeuronRtRootCommId), host + ":" + step.root_comm_port}, true);
  }
  b.add({std::string(env::kRank), std::to_string(task.global_id)}, true);
  b.add({std::string(env::kLocalRank), std::to_string(task.local_id)}, true);
  if (step.one_task_per_node) b.add({std::string(env::kPetMasterAddr), host}, true);
  if (step.neuron_world) {
    b.add({std::string(env::kNeuronPjrtProcessIndex), std::to_string(task.global_id)}, true);
    b.add({std::string(env::kPjrtLocalProcessRank), std::to_string(task.local_id)}, true);
  }
  if (task.local_id >= step.per_task.size()) {
    throw Error("task " + std::to_string(task.local_id) + " is not one of the " +
                std::to_string(step.per_task.size()) +
                " local tasks the step was prepared for: pass S_TASK_ID");
  }
  for (const auto& entry : step.per_task[task.local_id]) b.add(entry);
  if (step.compile_cache) {
    // Checked even when overriding: trn-slurm never edits NEURON_CC_FLAGS.
    const auto flags = existing(std::string(env::kNeuronCcFlags));
    const auto cache_dir = flags ? cache::cache_dir_in_flags(*flags) : std::nullopt;
    if (cache_dir) {
      b.out.warnings.push_back("NEURON_CC_FLAGS sets --cache_dir=" + *cache_dir +
                               ", which takes precedence over the compile cache " +
                               *step.compile_cache + ": left as it is");
    } else {
      b.add({std::string(env::kNeuronCompileCacheUrl), *step.compile_cache}, true);
    }
  }
  return std::move(b.out);
}

}  // namespace trn::taskenv
