#include "node_access.hpp"
#include "rules.hpp"
#include "trn/pcluster/config_check.hpp"

namespace trn::pcluster {
namespace {

bool runs_install_script(const YAML::Node& script_entry) {
  const auto script = text_at(script_entry, "Script");
  if (!script) return false;
  const auto slash = script->find_last_of('/');
  const std::string name = slash == std::string::npos ? *script : script->substr(slash + 1);
  return name == install_script_name;
}

bool action_installs(const YAML::Node& action) {
  if (runs_install_script(action)) return true;
  const auto sequence = child(action, "Sequence");
  if (!sequence || !sequence->IsSequence()) return false;
  for (const auto& entry : *sequence) {
    if (runs_install_script(entry)) return true;
  }
  return false;
}

// `owner` is the HeadNode map or a queue; `where`/`who` locate and name it in messages.
void check_owner(const YAML::Node& owner, const YAML::Mark& where, const std::string& who,
                 Report& report) {
  const std::string fix = std::string("run s3://<bucket>/trn-slurm/") +
                          std::string(install_script_name) +
                          " there (see pcluster-configs/README.md)";
  const auto actions = child(owner, "CustomActions");
  const auto configured = actions ? child(*actions, "OnNodeConfigured") : std::nullopt;
  if (!configured) {
    report.error(where,
                 who + " has no CustomActions.OnNodeConfigured that installs trn-slurm: " + fix);
    return;
  }
  if (!action_installs(*configured)) {
    report.error(key_mark(*actions, "OnNodeConfigured").value_or(where),
                 "CustomActions.OnNodeConfigured of " + who + " does not run " +
                     std::string(install_script_name) + ": " + fix);
  }
}

}  // namespace

void check_install_action(const YAML::Node& root, Report& report) {
  if (const auto head_node = child(root, "HeadNode"); head_node && head_node->IsMap()) {
    check_owner(*head_node, key_mark(root, "HeadNode").value_or(root.Mark()), "HeadNode", report);
  }
  for (const auto& queue : slurm_queues(root)) {
    check_owner(queue.node, queue.mark, queue.label("queue"), report);
  }
}

}  // namespace trn::pcluster
