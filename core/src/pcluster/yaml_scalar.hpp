#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace trn::pcluster {

// What ParallelCluster (PyYAML, YAML 1.1 rules) makes of a scalar. A plain scalar that looks
// like a boolean, a number or null is not a string there ("MountDir: 123" is rejected), while
// a quoted scalar always is.
enum class ScalarType { kNull, kBoolean, kInteger, kNumber, kString };

ScalarType resolve_scalar(const YAML::Node& scalar);

// Values as ParallelCluster's typed fields accept them; nullopt when the scalar does not fit.
std::optional<long long> integer_of(const YAML::Node& scalar);
std::optional<bool> boolean_of(const YAML::Node& scalar);
bool is_number(const YAML::Node& scalar);

// "a mapping", "a list", "the integer 16", ...: what a node is, for messages.
std::string describe_node(const YAML::Node& node);

}  // namespace trn::pcluster
