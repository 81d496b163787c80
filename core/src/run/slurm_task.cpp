#include "trn/run/slurm_task.hpp"

#include <string>
#include <utility>
#include <vector>

#include "trn/common/error.hpp"
#include "trn/common/hostlist.hpp"
#include "trn/common/whole_number.hpp"

namespace trn::run {
namespace {

constexpr std::string_view kNotSrun =
    ": it is set by srun for each task; start the command with srun";

unsigned long whole(std::string_view name, std::string_view text) {
  const auto number = parse_whole_number(text);
  if (!number || *number < 0 || *number > 0xffffffffLL) {
    throw Error(std::string(name) + "='" + std::string(text) + "' is not a whole number" +
                std::string(kNotSrun));
  }
  return static_cast<unsigned long>(*number);
}

std::string required(const EnvLookup& env, const char* name) {
  auto value = env(name);
  if (!value || value->empty())
    throw Error(std::string(name) + " is not set" + std::string(kNotSrun));
  return *value;
}

unsigned count(const EnvLookup& env, const char* name) {
  return static_cast<unsigned>(whole(name, required(env, name)));
}

}  // namespace

unsigned tasks_on_node(std::string_view tasks_per_node, unsigned node_id,
                       std::string_view variable) {
  const auto malformed = [&] {
    return Error(std::string(variable) + "='" + std::string(tasks_per_node) +
                 "' is not a list such as 2(x3),1" + std::string(kNotSrun));
  };
  // Every group is read before any is used: a malformed value is refused on every node alike.
  std::vector<std::pair<unsigned long, unsigned long>> groups;  // (tasks, nodes)
  std::string_view rest = tasks_per_node;
  for (bool more = true; more;) {
    const auto comma = rest.find(',');
    const auto group = rest.substr(0, comma);
    more = comma != std::string_view::npos;
    if (more) rest.remove_prefix(comma + 1);
    const auto paren = group.find('(');
    unsigned long repeat = 1;
    if (paren != std::string_view::npos) {
      if (group.size() < paren + 4 || group.substr(paren, 2) != "(x" || group.back() != ')')
        throw malformed();
      repeat = whole(variable, group.substr(paren + 2, group.size() - paren - 3));
    }
    const auto tasks = whole(variable, group.substr(0, paren));
    if (repeat == 0 || tasks == 0) throw malformed();
    groups.emplace_back(tasks, repeat);
  }
  unsigned long first = 0;  // the first node of the group
  for (const auto& [tasks, repeat] : groups) {
    if (node_id < first + repeat) return static_cast<unsigned>(tasks);
    first += repeat;
  }
  throw Error(std::string(variable) + "='" + std::string(tasks_per_node) + "' lists " +
              std::to_string(first) + " node(s), none for node " + std::to_string(node_id) +
              std::string(kNotSrun));
}

SlurmTask read_slurm_task(const EnvLookup& env) {
  SlurmTask task;
  auto& facts = task.facts;
  facts.job_id = count(env, "SLURM_JOB_ID");
  facts.step_id = count(env, "SLURM_STEP_ID");
  facts.nnodes = count(env, "SLURM_STEP_NUM_NODES");
  facts.node_id = count(env, "SLURM_NODEID");
  facts.total_task_count = count(env, "SLURM_STEP_NUM_TASKS");
  facts.local_task_count = tasks_on_node(required(env, "SLURM_STEP_TASKS_PER_NODE"), facts.node_id,
                                         "SLURM_STEP_TASKS_PER_NODE");
  facts.first_host = first_host(required(env, "SLURM_STEP_NODELIST"));
  facts.node_name = required(env, "SLURMD_NODENAME");
  task.ids.local_id = count(env, "SLURM_LOCALID");
  task.ids.global_id = count(env, "SLURM_PROCID");
  if (facts.nnodes == 0 || facts.node_id >= facts.nnodes ||
      task.ids.local_id >= facts.local_task_count || task.ids.global_id >= facts.total_task_count) {
    throw Error(
        "SLURM_NODEID " + std::to_string(facts.node_id) + " of " + std::to_string(facts.nnodes) +
        " node(s), SLURM_LOCALID " + std::to_string(task.ids.local_id) + " of " +
        std::to_string(facts.local_task_count) + ", SLURM_PROCID " +
        std::to_string(task.ids.global_id) + " of " + std::to_string(facts.total_task_count) +
        " do not fit together" + std::string(kNotSrun));
  }
  for (const char* name : {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS"}) {
    if (auto list = env(name)) {
      task.devices = IdList::parse(*list, name);
      break;
    }
  }
  return task;
}

}  // namespace trn::run
