#pragma once

#include <yaml-cpp/yaml.h>

#include "report.hpp"

namespace trn::pcluster {

// YAML merge keys (`<<: *anchor`, `<<: [*a, *b]`), which yaml-cpp keeps as a plain `<<` key:
// merged into their mapping in place, before the schema check, so that the config reads as
// ParallelCluster's loader sees it. Keys written in the mapping win over merged ones, and an
// earlier source in a list wins over a later one. A `<<` given anything but a mapping or a
// list of mappings is reported and dropped. Merged entries keep their own positions.
void merge_keys(YAML::Node root, Report& report);

}  // namespace trn::pcluster
