#include "merge_keys.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "node_access.hpp"
#include "yaml_scalar.hpp"

namespace trn::pcluster {
namespace {

constexpr const char* kMergeKey = "<<";

bool is_merge_key(const YAML::Node& key) { return key.IsScalar() && key.Scalar() == kMergeKey; }

class Merger {
 public:
  explicit Merger(Report& report) : report_(report) {}

  void visit(YAML::Node node, const std::string& path) {
    if (!node.IsMap() && !node.IsSequence()) return;
    // An anchored node is reached once per alias: expand it once (aliases can also nest it
    // inside itself, which must not recurse forever).
    auto& same_place = seen_[node.Mark().pos];
    for (const auto& other : same_place) {
      if (other.is(node)) return;
    }
    same_place.push_back(node);
    if (node.IsSequence()) {
      for (std::size_t i = 0; i < node.size(); ++i) {
        visit(node[i], path + "[" + std::to_string(i) + "]");
      }
      return;
    }
    std::vector<std::pair<YAML::Node, YAML::Node>> merges;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string name = it->first.IsScalar() ? it->first.Scalar() : "?";
      visit(it->second, is_merge_key(it->first) ? path : join_path(path, name));
      if (is_merge_key(it->first)) merges.emplace_back(it->first, it->second);
    }
    if (!merges.empty()) merge_into(node, merges, path);
  }

 private:
  void merge_into(YAML::Node map, const std::vector<std::pair<YAML::Node, YAML::Node>>& merges,
                  const std::string& path) {
    std::vector<YAML::Node> sources;
    for (const auto& [key, value] : merges) {
      if (value.IsMap()) {
        sources.push_back(value);
      } else if (value.IsSequence() && all_maps(value)) {
        for (std::size_t i = 0; i < value.size(); ++i) sources.push_back(value[i]);
      } else {
        report_.error(key.Mark(), "the merge key '<<' in " +
                                      (path.empty() ? std::string("the top level") : path) +
                                      " must be given a mapping or a list of mappings "
                                      "(<<: *anchor or <<: [*a, *b]), got " +
                                      describe_node(value));
      }
    }
    while (map.remove(std::string(kMergeKey))) {
    }
    std::set<std::string> present;
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (it->first.IsScalar()) present.insert(it->first.Scalar());
    }
    for (const auto& source : sources) {
      for (auto it = source.begin(); it != source.end(); ++it) {
        if (is_merge_key(it->first)) continue;  // already expanded in the source
        if (it->first.IsScalar() && !present.insert(it->first.Scalar()).second) continue;
        map.force_insert(it->first, it->second);
      }
    }
  }

  static bool all_maps(const YAML::Node& list) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].IsMap()) return false;
    }
    return true;
  }

  Report& report_;
  std::map<int, std::vector<YAML::Node>> seen_;  // by position; is() tells nodes apart
};

}  // namespace

void merge_keys(YAML::Node root, Report& report) { Merger(report).visit(root, ""); }

}  // namespace trn::pcluster
