#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trn/plan/profile.hpp"

namespace trn::plan {

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Where named profiles are looked up, first match wins: each directory of $TRN_PROFILE_PATH
// (colon-separated), the user's config directory ($XDG_CONFIG_HOME/trn-slurm/profiles, else
// ~/.config/trn-slurm/profiles), then `share_dirs` in the order given (the installed profiles,
// and the source tree's launcher/profiles when running from a build tree).
std::vector<std::filesystem::path> profile_search_dirs(
    const EnvLookup& env, const std::vector<std::filesystem::path>& share_dirs);

// The same, reading the process environment.
std::vector<std::filesystem::path> profile_search_dirs(
    const std::vector<std::filesystem::path>& share_dirs);

struct ProfileLocation {
  std::string name;  // what the run directory is named after
  std::filesystem::path file;
};

// PROFILE is a path when it holds a '/' or ends in .yaml or .yml, else a name looked up as
// NAME.yaml (then NAME.yml) in `dirs`. Throws trn::Error for a missing file, or for an
// unknown name listing the profiles that exist and the directories searched.
ProfileLocation locate_profile(std::string_view profile,
                               const std::vector<std::filesystem::path>& dirs);

// The profiles `dirs` offer, sorted by name; a name found in several directories is listed
// once, from the directory that wins.
std::vector<ProfileLocation> available_profiles(const std::vector<std::filesystem::path>& dirs);

// locate_profile, then load_profile_file.
Profile load_profile(std::string_view profile, const std::vector<std::filesystem::path>& dirs);

}  // namespace trn::plan
