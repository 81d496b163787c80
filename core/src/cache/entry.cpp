#include "trn/cache/entry.hpp"

#include <algorithm>

#include "directory.hpp"
#include "file_times.hpp"
#include "trn/cache/layout.hpp"
#include "trn/common/enum_names.hpp"

namespace trn::cache {

namespace {

constexpr EnumNames<EntryState, 4> entry_state_names{{
    {EntryState::kDone, "done"},
    {EntryState::kFailed, "failed"},
    {EntryState::kLocked, "locked"},
    {EntryState::kEmpty, "empty"},
}};

}  // namespace

std::string_view to_string(EntryState state) { return name_of(entry_state_names, state); }

EntryState classify(const std::vector<std::string>& file_names) {
  bool neff = false;
  bool done = false;
  bool log = false;
  for (const auto& name : file_names) {
    if (is_lock_file_name(name)) return EntryState::kLocked;
    neff = neff || name == neff_file;
    done = done || name == done_file;
    log = log || name == log_file;
  }
  if (neff && done) return EntryState::kDone;
  if (log && !neff) return EntryState::kFailed;
  return EntryState::kEmpty;
}

std::optional<Entry> read_entry(const std::filesystem::path& entry_dir) {
  auto dir = detail::OpenDirectory::open(entry_dir);
  if (!dir) return std::nullopt;
  Entry entry;
  entry.path = entry_dir;
  entry.module = entry_dir.filename().string();
  const auto version_dir = entry_dir.parent_path().filename().string();
  if (is_version_dir_name(version_dir)) {
    entry.compiler_version = version_dir.substr(version_dir_prefix.size());
  }
  std::vector<std::string> names;
  for (const auto& item : dir->items()) {
    names.push_back(item.name);
    if (item.is_dir) continue;
    const auto info = dir->stat_of(item.name);
    if (!info || !S_ISREG(info->st_mode)) continue;
    const auto size = static_cast<std::uintmax_t>(info->st_size);
    entry.bytes += size;
    if (item.name == neff_file) entry.neff_bytes = size;
    entry.last_use =
        std::max({entry.last_use, detail::access_time(*info), detail::modification_time(*info)});
  }
  entry.state = classify(names);
  return entry;
}

}  // namespace trn::cache
