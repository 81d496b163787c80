#include "node_access.hpp"

#include "yaml_scalar.hpp"

namespace trn::pcluster {

std::optional<YAML::Node> child(const YAML::Node& map, std::string_view key) {
  if (!map.IsMap()) return std::nullopt;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
  }
  return std::nullopt;
}

namespace {

// Recursive on purpose: never assign one YAML::Node to another, yaml-cpp's assignment
// rewrites the node the left side refers to, i.e. it would edit the tree.
std::optional<YAML::Node> descend_from(const YAML::Node& node, const std::string_view* key,
                                       const std::string_view* end) {
  if (key == end) return node;
  const auto next = child(node, *key);
  if (!next) return std::nullopt;
  return descend_from(*next, key + 1, end);
}

}  // namespace

std::optional<YAML::Node> descend(const YAML::Node& node,
                                  std::initializer_list<std::string_view> keys) {
  return descend_from(node, keys.begin(), keys.end());
}

std::optional<YAML::Mark> key_mark(const YAML::Node& map, std::string_view key) {
  if (!map.IsMap()) return std::nullopt;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->first.Mark();
  }
  return std::nullopt;
}

std::optional<std::string> text_at(const YAML::Node& map, std::string_view key) {
  const auto value = child(map, key);
  if (!value || !value->IsScalar()) return std::nullopt;
  return value->Scalar();
}

std::optional<long long> integer_at(const YAML::Node& map, std::string_view key) {
  const auto value = child(map, key);
  return value ? integer_of(*value) : std::nullopt;
}

std::optional<bool> boolean_at(const YAML::Node& map, std::string_view key) {
  const auto value = child(map, key);
  return value ? boolean_of(*value) : std::nullopt;
}

std::string Item::label(std::string_view kind) const {
  if (name.empty()) return path;
  return std::string(kind) + " '" + name + "'";
}

std::vector<Item> items(const YAML::Node& map, std::string_view list_key, const std::string& path) {
  std::vector<Item> result;
  const auto list = child(map, list_key);
  if (!list || !list->IsSequence()) return result;
  const std::string list_path = join_path(path, list_key);
  for (std::size_t i = 0; i < list->size(); ++i) {
    const YAML::Node element = (*list)[i];
    if (!element.IsMap()) continue;
    result.push_back({element, list_path + "[" + std::to_string(i) + "]",
                      text_at(element, "Name").value_or(""), element.Mark()});
  }
  return result;
}

std::vector<Item> slurm_queues(const YAML::Node& root) {
  const auto scheduling = child(root, "Scheduling");
  if (!scheduling) return {};
  return items(*scheduling, "SlurmQueues", "Scheduling");
}

std::vector<Item> compute_resources(const Item& queue) {
  return items(queue.node, "ComputeResources", queue.path);
}

std::vector<std::pair<std::string, YAML::Mark>> instance_types(const Item& resource) {
  std::vector<std::pair<std::string, YAML::Mark>> types;
  if (const auto type = child(resource.node, "InstanceType"); type && type->IsScalar()) {
    types.emplace_back(type->Scalar(), type->Mark());
  }
  for (const auto& flexible : items(resource.node, "Instances", resource.path)) {
    if (const auto type = child(flexible.node, "InstanceType"); type && type->IsScalar()) {
      types.emplace_back(type->Scalar(), type->Mark());
    }
  }
  return types;
}

std::string join_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

}  // namespace trn::pcluster
