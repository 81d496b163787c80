#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "trn/plan/profile.hpp"

namespace trn::plan {

// Reads a profile file. Every problem is a trn::Error that starts with FILE:LINE:COLUMN
// (1-based): YAML syntax, unknown or duplicate keys (with a suggestion for a misspelt one),
// values of the wrong type, unknown {placeholders} in the command or env, missing required
// keys. `name` defaults to the file's stem.
Profile load_profile_file(const std::filesystem::path& file, std::string name = {});

// The same for profile text; `source` names it in messages (a path or e.g. "<test>").
Profile parse_profile(std::string_view yaml_text, const std::string& source, std::string name);

}  // namespace trn::plan
