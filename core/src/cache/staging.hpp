#pragma once

#include <chrono>
#include <filesystem>
#include <string_view>
#include <vector>

#include "directory.hpp"

namespace trn::cache::detail {

// trn-cache's own folders inside a version folder: ".trn-tmp.<pid>.<n>.<host>". The name is
// not MODULE_*, so neither the compiler nor a scan ever takes one for an entry; it records
// who made it, so a later run can tell a leftover of a killed copy from a copy in progress.
inline constexpr std::string_view temp_prefix = ".trn-tmp.";

// How long a temporary folder made on another host is presumed in use.
inline constexpr std::chrono::hours foreign_temp_lifetime{24};

bool is_temp_name(std::string_view name);

// Creates a fresh, empty temporary folder in `version_dir` and returns its path.
std::filesystem::path make_temp_dir(const std::filesystem::path& version_dir);

// A temporary folder is stale when its maker is gone: made on this host by a process that no
// longer runs, or older than foreign_temp_lifetime.
bool is_stale_temp(const std::filesystem::path& temp_dir);

// Removes the stale temporary folders among `items`, the listing of `dir` (a version folder, or a
// local root holding a spread's inboxes); returns how many.
std::size_t remove_stale_temps(const std::filesystem::path& dir, const std::vector<DirItem>& items);
// The same, listing `dir` first (none when it does not exist).
std::size_t remove_stale_temps(const std::filesystem::path& dir);

// Removes a folder tree; a folder that is already gone is fine.
void remove_tree(const std::filesystem::path& dir);

// Makes an entry vanish at once (renamed to a temporary name), then deletes it, so no reader
// ever sees it half deleted. Returns false when it was already gone.
bool remove_entry(const std::filesystem::path& entry_dir);

}  // namespace trn::cache::detail
