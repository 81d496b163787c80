#include <map>

#include "node_access.hpp"
#include "rules.hpp"
#include "trn/pcluster/resource_name.hpp"

namespace trn::pcluster {
namespace {

// Checks the Name of each item and that no two share one. `kind` names the items in messages.
void check_names(const std::vector<Item>& list, std::string_view kind, Report& report) {
  std::map<std::string, const Item*> first_with_name;
  for (const auto& item : list) {
    const auto name_node = child(item.node, "Name");
    if (!name_node || !name_node->IsScalar()) continue;  // missing: reported by the schema check
    const std::string& name = item.name;
    if (!is_valid_resource_name(name)) {
      report.error(name_node->Mark(),
                   std::string(kind) + " name '" + name + "' at " + item.path +
                       " is not valid: use lowercase letters, digits and '-', start with a "
                       "letter, at most " +
                       std::to_string(max_resource_name_length) + " characters");
    }
    const auto [first, inserted] = first_with_name.emplace(name, &item);
    if (!inserted) {
      report.error(name_node->Mark(), std::string(kind) + " name '" + name + "' at " + item.path +
                                          " is already used by " + first->second->path +
                                          ": names must be unique");
    }
  }
}

}  // namespace

void check_resource_names(const YAML::Node& root, Report& report) {
  const auto queues = slurm_queues(root);
  check_names(queues, "queue", report);
  for (const auto& queue : queues)
    check_names(compute_resources(queue), "compute resource", report);
}

}  // namespace trn::pcluster
