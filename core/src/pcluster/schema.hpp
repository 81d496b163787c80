#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace trn::pcluster {

// A hand-written subset of ParallelCluster 3's cluster schema
// (aws-parallelcluster cli/src/pcluster/schemas/cluster_schema.py): for every section we model,
// the keys it allows, which are required, and their types. Unknown keys are errors in the
// modelled sections; `any` fields are accepted as they are (sections trn-slurm does not use).

enum class ValueKind {
  kString,
  kInteger,
  kNumber,
  kBoolean,
  kMap,           // a nested section
  kStringList,    // a list of strings
  kMapList,       // a list of nested sections
  kCustomAction,  // OnNodeStart/OnNodeConfigured/OnNodeUpdated: Script (+Args) or Sequence
  kAny,           // not modelled: accepted unchecked
};

struct Section;

struct Field {
  std::string_view key;
  ValueKind kind = ValueKind::kString;
  bool required = false;
  const Section* section = nullptr;           // map and map_list
  std::vector<std::string_view> one_of = {};  // allowed values of a string (empty: any)
  std::string_view pattern = {};              // ECMAScript regex a string must match fully
  std::string_view pattern_meaning = {};      // what the pattern asks for, for the message
  std::optional<long long> minimum = {};      // integers
};

struct Section {
  std::vector<Field> fields;

  const Field* find(std::string_view key) const;
};

// The root of a cluster configuration file.
const Section& cluster_section();

// One custom action script: Script (required) and Args.
const Section& custom_action_script_section();

}  // namespace trn::pcluster
