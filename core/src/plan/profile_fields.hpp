#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trn/plan/profile.hpp"
#include "trn/plan/profile_keys.hpp"

namespace trn::plan {

// One key of a profile that holds a single value, and how to set it from text; the profile
// file and the command-line overrides share these, so they accept exactly the same values.
struct Field {
  ProfileKey doc;
  // false when `text` does not fit; `problem` then says why, or stays empty for the plain
  // "must be <accepts>" message.
  bool (*set)(Profile& profile, std::string_view text, std::string& problem);
};

const std::vector<Field>& scalar_fields();  // every key but "env"
const Field* find_field(std::string_view key);
std::vector<std::string_view> all_key_names();  // the scalar fields and "env"

// "micro_batch must be a whole number >= 1 (sequences per worker per micro-step), got 'x'"
std::string wrong_value(const Field& field, std::string_view text);

// Checks and stores one env entry; returns the problem, "" when accepted.
std::string set_env_entry(Profile& profile, std::string_view name, std::string_view value);

// Checks the placeholders of the command words; returns the problem, "" when accepted.
std::string check_command_words(const std::vector<std::string>& words);

// The first required key the profile lacks ("missing required key ..."), or the first value out
// of range; "" when the profile can be planned.
std::string missing_required(const Profile& profile);

}  // namespace trn::plan
