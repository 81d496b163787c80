#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trn::pcluster {

// Read access to a parsed config for the rules. A lookup returns the first occurrence of a key
// (duplicates are the schema check's business) and never inserts into the tree, unlike
// yaml-cpp's non-const operator[]. Anything of an unexpected shape reads as absent: the schema
// check has already reported it.

std::optional<YAML::Node> child(const YAML::Node& map, std::string_view key);
std::optional<YAML::Node> descend(const YAML::Node& node,
                                  std::initializer_list<std::string_view> keys);
std::optional<YAML::Mark> key_mark(const YAML::Node& map, std::string_view key);

std::optional<std::string> text_at(const YAML::Node& map, std::string_view key);
std::optional<long long> integer_at(const YAML::Node& map, std::string_view key);
std::optional<bool> boolean_at(const YAML::Node& map, std::string_view key);

// An element of a list of mappings, e.g. one queue: its node, its path for messages
// ("Scheduling.SlurmQueues[1]"), its Name when it has one and where it starts.
struct Item {
  YAML::Node node;
  std::string path;
  std::string name;
  YAML::Mark mark;

  // "queue 'trn1'" or, without a name, the path.
  std::string label(std::string_view kind) const;
};

std::vector<Item> items(const YAML::Node& map, std::string_view list_key, const std::string& path);
std::vector<Item> slurm_queues(const YAML::Node& root);
std::vector<Item> compute_resources(const Item& queue);

// A compute resource's instance types (InstanceType, or each of Instances) and where each is.
std::vector<std::pair<std::string, YAML::Mark>> instance_types(const Item& resource);

std::string join_path(const std::string& parent, std::string_view key);

}  // namespace trn::pcluster
