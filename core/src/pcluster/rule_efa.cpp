#include "node_access.hpp"
#include "rules.hpp"
#include "trn/topology/instance_facts.hpp"

namespace trn::pcluster {
namespace {

// A compute resource's own Networking.PlacementGroup replaces its queue's.
std::optional<YAML::Node> effective_placement_group(const Item& queue, const Item& resource) {
  if (auto own = descend(resource.node, {"Networking", "PlacementGroup"})) return own;
  return descend(queue.node, {"Networking", "PlacementGroup"});
}

// Enabled: true, or an existing group named by Id or Name without Enabled: false.
bool placement_group_enabled(const std::optional<YAML::Node>& group) {
  if (!group || !group->IsMap()) return false;
  if (const auto enabled = boolean_at(*group, "Enabled")) return *enabled;
  return child(*group, "Id").has_value() || child(*group, "Name").has_value();
}

// The EFA claim for one instance type of a compute resource (`who`), whose Efa.Enabled is
// `efa_on` (set at `enabled_node`, when it is): true when EFA is on where the type has none.
// Types without facts, or whose EFA count is not published, get no claim.
bool judge_efa(const std::string& who, const std::string& type, const YAML::Mark& mark,
               const std::optional<YAML::Node>& enabled_node, bool efa_on, Report& report) {
  const auto* facts = topology::instance_facts(type);
  if (facts == nullptr || !facts->efa_devices) return false;
  const unsigned efa_devices = *facts->efa_devices;
  if (efa_devices > 0 && !efa_on) {
    report.error(enabled_node ? enabled_node->Mark() : mark,
                 who + " (" + type + ") has " + std::to_string(efa_devices) +
                     " EFA devices but Efa.Enabled is not true: set Efa: {Enabled: true} so "
                     "multi-node collectives run over EFA");
  }
  if (efa_devices > 0 || !efa_on) return false;
  report.error(enabled_node->Mark(), who + " (" + type +
                                         ") has no EFA device but Efa.Enabled is true: "
                                         "remove Efa or set Enabled: false");
  return true;
}

void check_resource(const Item& queue, const Item& resource, Report& report) {
  const auto enabled_node = descend(resource.node, {"Efa", "Enabled"});
  const bool efa_on =
      boolean_at(child(resource.node, "Efa").value_or(YAML::Node()), "Enabled").value_or(false);
  const std::string who = resource.label("compute resource");
  bool efa_on_instance_without_efa = false;
  for (const auto& [type, mark] : instance_types(resource)) {
    if (judge_efa(who, type, mark, enabled_node, efa_on, report))
      efa_on_instance_without_efa = true;
  }
  // Where EFA must go away, asking for a placement group as well would mislead.
  if (efa_on && !efa_on_instance_without_efa &&
      !placement_group_enabled(effective_placement_group(queue, resource))) {
    report.error(enabled_node->Mark(),
                 who +
                     " enables EFA but has no placement group: add Networking: PlacementGroup: "
                     "Enabled: true to " +
                     queue.label("queue") + " (or to the compute resource)");
  }
}

}  // namespace

void check_efa(const YAML::Node& root, Report& report) {
  for (const auto& queue : slurm_queues(root)) {
    for (const auto& resource : compute_resources(queue)) check_resource(queue, resource, report);
  }
}

}  // namespace trn::pcluster
