#include "trn/pcluster/node_features.hpp"

#include <regex>
#include <sstream>

#include "trn/topology/instance_facts.hpp"

namespace trn::pcluster {

bool is_instance_type_name(std::string_view text) {
  // The sizes EC2 uses; a bare dotted word such as "cuda6.5" is not an instance type.
  static const std::regex name(
      "[a-z][a-z0-9-]*\\.(nano|micro|small|medium|large|[0-9]*xlarge|metal(-[0-9]+xl)?)");
  return std::regex_match(text.begin(), text.end(), name);
}

std::optional<std::string> instance_type_problem(std::string_view instance_type) {
  if (!is_instance_type_name(instance_type)) {
    return "is not an EC2 instance type: write FAMILY.SIZE, e.g. trn1.32xlarge";
  }
  if (topology::instance_facts(instance_type) != nullptr) return std::nullopt;
  if (instance_type.starts_with("trn") || instance_type.starts_with("inf")) {
    return "is not a Trainium or Inferentia type trn-slurm knows: use one of " +
           topology::instance_facts_types_text();
  }
  return std::nullopt;
}

std::optional<std::string> instance_type_in_features(std::string_view features) {
  std::istringstream list{std::string(features)};
  std::string feature;
  while (std::getline(list, feature, ',')) {
    if (is_instance_type_name(feature)) return feature;
  }
  return std::nullopt;
}

std::set<std::string> partition_instance_types(std::string_view sinfo_output,
                                               const std::optional<std::string>& partition) {
  std::set<std::string> types;
  std::istringstream lines{std::string(sinfo_output)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string name, features;
    if (!(fields >> name >> features)) continue;
    const bool is_default = name.ends_with('*');
    if (is_default) name.pop_back();
    if (partition ? name != *partition : !is_default) continue;
    if (auto type = instance_type_in_features(features)) types.insert(std::move(*type));
  }
  return types;
}

}  // namespace trn::pcluster
