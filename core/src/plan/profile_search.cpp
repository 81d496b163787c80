#include "trn/plan/profile_search.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <system_error>

#include "suggest.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/plan/load_profile.hpp"

namespace trn::plan {
namespace {

namespace fs = std::filesystem;

bool looks_like_path(std::string_view profile) {
  return profile.find('/') != std::string_view::npos || profile.ends_with(".yaml") ||
         profile.ends_with(".yml");
}

std::optional<fs::path> file_in(const fs::path& dir, std::string_view name) {
  for (const char* extension : {".yaml", ".yml"}) {
    const fs::path candidate = dir / (std::string(name) + extension);
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

std::string list_dirs(const std::vector<fs::path>& dirs) {
  std::string out;
  for (const auto& dir : dirs) out += (out.empty() ? "" : ", ") + dir.string();
  return out.empty() ? "(none)" : out;
}

}  // namespace

std::vector<fs::path> profile_search_dirs(const EnvLookup& env,
                                          const std::vector<fs::path>& share_dirs) {
  std::vector<fs::path> dirs;
  if (const auto path = env("TRN_PROFILE_PATH")) {
    std::string_view rest = *path;
    while (true) {
      const auto colon = rest.find(':');
      const std::string_view entry = rest.substr(0, colon);
      if (!entry.empty()) dirs.emplace_back(entry);  // an empty entry adds nothing
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  // XDG base directories: a relative XDG_CONFIG_HOME is invalid and ignored.
  const auto xdg = env("XDG_CONFIG_HOME");
  const auto home = env("HOME");
  if (xdg && !xdg->empty() && fs::path(*xdg).is_absolute()) {
    dirs.push_back(fs::path(*xdg) / "trn-slurm" / "profiles");
  } else if (home && !home->empty()) {
    dirs.push_back(fs::path(*home) / ".config" / "trn-slurm" / "profiles");
  }
  dirs.insert(dirs.end(), share_dirs.begin(), share_dirs.end());
  return dirs;
}

std::vector<fs::path> profile_search_dirs(const std::vector<fs::path>& share_dirs) {
  return profile_search_dirs(env_value, share_dirs);
}

std::vector<ProfileLocation> available_profiles(const std::vector<fs::path>& dirs) {
  std::map<std::string, fs::path> found;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& file = it->path();
      const auto extension = file.extension();
      if ((extension != ".yaml" && extension != ".yml") || !it->is_regular_file(ec)) continue;
      found.emplace(file.stem().string(), file);  // an earlier directory wins
    }
  }
  std::vector<ProfileLocation> profiles;
  profiles.reserve(found.size());
  for (auto& [name, file] : found) profiles.push_back({name, file});
  return profiles;
}

ProfileLocation locate_profile(std::string_view profile, const std::vector<fs::path>& dirs) {
  if (looks_like_path(profile)) {
    const fs::path file(profile);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(file, ec))) {
      throw Error("profile " + file.string() +
                  ": no such file; give an existing YAML file, or a profile name");
    }
    if (!fs::is_regular_file(file, ec)) {
      throw Error("profile " + file.string() +
                  ": it is not a regular file (a folder, FIFO or device); give a YAML file");
    }
    return {file.stem().string(), file};
  }
  if (profile.empty()) {
    throw Error("no profile given: name one (e.g. bert_tiny) or give a YAML file's path");
  }
  for (const auto& dir : dirs) {
    if (auto file = file_in(dir, profile)) return {std::string(profile), *file};
  }
  std::vector<std::string_view> names;
  const auto available = available_profiles(dirs);
  names.reserve(available.size());
  for (const auto& location : available) names.push_back(location.name);
  throw Error("unknown profile '" + std::string(profile) + "'" + did_you_mean(profile, names) +
              ": available profiles: " + (names.empty() ? "none" : join_names(names)) +
              " (searched " + list_dirs(dirs) +
              "); give one of these names or the path of a YAML file");
}

Profile load_profile(std::string_view profile, const std::vector<fs::path>& dirs) {
  const auto location = locate_profile(profile, dirs);
  return load_profile_file(location.file, location.name);
}

}  // namespace trn::plan
