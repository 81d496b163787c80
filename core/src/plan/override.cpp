#include <string>

#include "profile_fields.hpp"
#include "suggest.hpp"
#include "trn/common/error.hpp"
#include "trn/plan/profile_keys.hpp"

namespace trn::plan {
namespace {

void override_key(Profile& profile, std::string_view key, std::string_view value,
                  const std::string& where) {
  const auto dot = key.find('.');
  const std::string_view head = key.substr(0, dot);
  if (dot != std::string_view::npos) {
    if (head != "env") {
      const bool known = find_field(head) != nullptr;
      throw Error(where + ": " +
                  (known ? "'" + std::string(head) + "' holds a single value, not a mapping: "
                         : "unknown key '" + std::string(head) + "'" +
                               did_you_mean(head, all_key_names()) + "; ") +
                  "only env takes a dotted key (env.NAME=value)");
    }
    const std::string problem = set_env_entry(profile, key.substr(dot + 1), value);
    if (!problem.empty()) throw Error(where + ": " + problem);
    return;
  }
  if (key == "env") {
    throw Error(where + ": env is a mapping: set one variable with env.NAME=value");
  }
  const Field* field = find_field(key);
  if (field == nullptr) {
    const std::string suggestion = did_you_mean(key, all_key_names());
    throw Error(where + ": unknown key '" + std::string(key) + "'" + suggestion +
                (suggestion.empty() ? "; keys: " + join_names(all_key_names()) : ""));
  }
  std::string problem;
  if (!field->set(profile, value, problem)) {
    throw Error(where + ": " + (problem.empty() ? wrong_value(*field, value) : problem));
  }
}

}  // namespace

void apply_override(Profile& profile, std::string_view key, std::string_view value) {
  override_key(profile, key, value, "override " + std::string(key) + "=" + std::string(value));
}

void apply_set_option(Profile& profile, std::string_view assignment) {
  const auto equals = assignment.find('=');
  const std::string where = "--set " + std::string(assignment);
  if (equals == std::string_view::npos || equals == 0) {
    throw Error(where + ": expected KEY=VALUE, e.g. --set micro_batch=8 or --set env.FOO=bar");
  }
  override_key(profile, assignment.substr(0, equals), assignment.substr(equals + 1), where);
}

}  // namespace trn::plan
