#include "trn/cache/neff_layout.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "directory.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {
namespace {

bool is_lower_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A shard folder's name: two hex digits.
bool is_shard_name(const detail::DirItem& item) {
  return item.is_dir && item.name.size() == 2 && is_lower_hex(item.name);
}

}  // namespace

std::filesystem::path neff_cache_root(const std::optional<std::string>& neff_cache_dir) {
  if (neff_cache_dir && !neff_cache_dir->empty()) return *neff_cache_dir;
  return std::string(default_neff_cache_root);
}

std::filesystem::path shared_neff_root(const std::filesystem::path& shared_root) {
  return shared_root / shared_neff_dir_name;
}

bool is_neff_key(std::string_view key) { return key.size() >= 4 && is_lower_hex(key); }

std::filesystem::path neff_relative_path(std::string_view key) {
  if (!is_neff_key(key)) {
    throw Error("NEFF cache key '" + std::string(key) +
                "' is not lower-case hex of at least 4 digits");
  }
  return std::filesystem::path(std::string(key.substr(0, 2))) / std::string(key.substr(2, 2)) /
         (std::string(key) + std::string(neff_extension));
}

std::optional<std::vector<NeffEntry>> scan_neffs(const std::filesystem::path& root) {
  const auto level1 = detail::list_directory(root);
  if (!level1) return std::nullopt;
  std::vector<NeffEntry> entries;
  for (const auto& first : *level1) {
    if (!is_shard_name(first)) continue;
    const auto level2 = detail::list_directory(root / first.name);
    if (!level2) continue;  // removed meanwhile
    for (const auto& second : *level2) {
      if (!is_shard_name(second)) continue;
      auto shard = detail::OpenDirectory::open(root / first.name / second.name);
      if (!shard) continue;
      for (const auto& item : shard->items()) {
        const std::string_view name = item.name;
        if (item.is_dir || !name.ends_with(neff_extension)) continue;
        const auto key = name.substr(0, name.size() - neff_extension.size());
        if (!is_neff_key(key) || key.substr(0, 2) != first.name || key.substr(2, 2) != second.name)
          continue;
        const auto info = shard->stat_of(item.name);
        if (!info || !S_ISREG(info->st_mode)) continue;
        entries.push_back({std::string(key), static_cast<std::uintmax_t>(info->st_size)});
      }
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const NeffEntry& a, const NeffEntry& b) { return a.key < b.key; });
  return entries;
}

}  // namespace trn::cache
