#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "report.hpp"
#include "schema.hpp"

namespace trn::pcluster {

// Checks that `map`, found at `path` (empty for the top level), matches `section`: no unknown
// keys, no duplicate keys (yaml-cpp keeps both, ParallelCluster rejects them), every required
// key present and every value of its field's type and format. Missing keys are reported at
// `where`, the key or list element that holds the map.
void check_section(const YAML::Node& map, const Section& section, const std::string& path,
                   const YAML::Mark& where, Report& report);

// Checks one OnNodeStart/OnNodeConfigured/OnNodeUpdated value: Script (with optional Args) or
// Sequence (a list of such scripts, ParallelCluster 3.6+), never both.
void check_custom_action(const YAML::Node& value, const std::string& path, const YAML::Mark& where,
                         Report& report);

}  // namespace trn::pcluster
