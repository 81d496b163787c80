#include "trn/cache/transfer.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <optional>
#include <system_error>
#include <thread>

#include "directory.hpp"
#include "file_copy.hpp"
#include "parallel_work.hpp"
#include "staging.hpp"
#include "transfer_roots.hpp"
#include "trn/cache/entry.hpp"
#include "trn/cache/layout.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {

namespace {

// kMoveIn: a pull whose source is private to the caller and on the destination's file system
// (a spread's inbox), so entries are renamed into place instead of copied.
enum class Direction { kPull, kPush, kMoveIn };

// The warm path: an entry complete in both tiers, with model.neff of the same size in both, is
// present. Six inode lookups relative to the two version folders: no folder of an entry is
// opened or listed and no content is read. Returns the source's bytes (the layout's files),
// or nullopt when a closer look is needed.
std::optional<std::uintmax_t> present_in_both(const detail::OpenDirectory& source,
                                              const detail::OpenDirectory& target,
                                              const std::string& module) {
  auto stat_in = [&](const detail::OpenDirectory& dir, std::string_view file) {
    return dir.stat_of(module + "/" + std::string(file));
  };
  const auto target_done = stat_in(target, done_file);
  if (!target_done) return std::nullopt;
  const auto target_neff = stat_in(target, neff_file);
  const auto source_neff = stat_in(source, neff_file);
  if (!target_neff || !source_neff || !S_ISREG(target_neff->st_mode) ||
      target_neff->st_size != source_neff->st_size) {
    return std::nullopt;
  }
  const auto source_done = stat_in(source, done_file);
  if (!source_done) return std::nullopt;
  auto bytes = static_cast<std::uintmax_t>(source_neff->st_size + source_done->st_size);
  for (const auto file : {hlo_file, flags_file}) {
    if (const auto info = stat_in(source, file))
      bytes += static_cast<std::uintmax_t>(info->st_size);
  }
  return bytes;
}

// Copies the source entry's regular files (not its locks) into a fresh temporary folder.
// Returns the folder, or nullopt when the source vanished meanwhile (the folder is removed).
std::optional<std::filesystem::path> stage_copy(const Entry& source,
                                                const std::filesystem::path& version_dir,
                                                std::uintmax_t* bytes) {
  const auto temp = detail::make_temp_dir(version_dir);
  try {
    auto dir = detail::OpenDirectory::open(source.path);
    if (!dir) {
      detail::remove_tree(temp);
      return std::nullopt;
    }
    for (const auto& item : dir->items()) {
      if (item.is_dir || is_lock_file_name(item.name)) continue;
      const auto info = dir->stat_of(item.name);
      if (!info || !S_ISREG(info->st_mode)) continue;
      if (detail::copy_regular_file(source.path / item.name, temp / item.name, bytes) ==
          detail::CopyOutcome::kSourceVanished) {
        detail::remove_tree(temp);
        return std::nullopt;
      }
    }
  } catch (...) {
    detail::remove_tree(temp);
    throw;
  }
  return temp;
}

// Puts a staged copy in place of `target`. rename() onto an existing, non-empty folder fails,
// so a destination entry (complete or not) is first moved aside when `replace` is set.
// Returns false when another process put an entry there first (the staged copy is dropped).
bool install(const std::filesystem::path& staged, const std::filesystem::path& target,
             bool replace) {
  if (replace) detail::remove_entry(target);
  if (::rename(staged.c_str(), target.c_str()) == 0) return true;
  const int error_number = errno;
  detail::remove_tree(staged);
  if (error_number == EEXIST || error_number == ENOTEMPTY) return false;
  detail::throw_errno("cannot move the copied entry to", target, error_number,
                      detail::destination_fix);
}

[[noreturn]] void throw_not_a_folder(const std::filesystem::path& target_path) {
  throw Error(target_path.string() +
              " is not a folder, so the entry cannot be put there: remove it (the compiler "
              "recreates it as a folder)");
}

// One module folder of the source version: copied, counted as present, or skipped.
// `listed_dir`: whether the destination's listing had the name as a folder; none when the
// listing lacked it (another node's transfer may have put it there since).
void transfer_entry(const detail::OpenDirectory& source_dir, const detail::OpenDirectory& target,
                    const std::filesystem::path& source_version_dir,
                    const std::filesystem::path& target_version_dir, const std::string& name,
                    std::optional<bool> listed_dir, Direction direction, TransferReport& report) {
  const auto target_path = target_version_dir / name;
  if (listed_dir && !*listed_dir) throw_not_a_folder(target_path);
  if (listed_dir) {
    if (const auto bytes = present_in_both(source_dir, target, name)) {
      report.present++;
      report.present_bytes += *bytes;
      return;
    }
  }
  const auto source = read_entry(source_version_dir / name);
  if (!source) return;
  if (source->state != EntryState::kDone) {
    report.not_complete++;
    report.not_complete_bytes += source->bytes;
    return;
  }
  bool replace = false;
  // Listed at the start, or put there since by a transfer on another node (shared tier).
  bool exists = listed_dir.has_value();
  if (!exists) {
    if (const auto info = target.stat_of(name)) {
      if (!S_ISDIR(info->st_mode)) throw_not_a_folder(target_path);
      exists = true;
    }
  }
  if (exists) {
    const auto existing = read_entry(target_path);
    if (existing && existing->state == EntryState::kLocked) {
      report.busy++;
      report.busy_bytes += source->bytes;
      return;
    }
    const bool same = existing && existing->state == EntryState::kDone &&
                      existing->neff_bytes == source->neff_bytes;
    if (same ||
        (existing && existing->state == EntryState::kDone && direction == Direction::kPush)) {
      report.present++;  // (a push never overwrites a complete shared entry)
      report.present_bytes += source->bytes;
      return;
    }
    replace = existing.has_value();
  }
  std::uintmax_t bytes = 0;
  std::optional<std::filesystem::path> staged;
  if (direction == Direction::kMoveIn) {
    staged = source->path;  // private to the caller: it becomes the entry
    bytes = source->bytes;
  } else {
    staged = stage_copy(*source, target_version_dir, &bytes);
  }
  if (!staged) {
    report.vanished++;
    return;
  }
  if (!install(*staged, target_path, replace)) {
    report.present++;  // a concurrent transfer installed it first
    report.present_bytes += source->bytes;
    return;
  }
  report.copied++;
  report.copied_bytes += bytes;
  if (replace) report.replaced++;
}

void transfer_version(const std::filesystem::path& source_version_dir,
                      const std::filesystem::path& target_version_dir, Direction direction,
                      unsigned jobs, TransferReport& report) {
  auto source_dir = detail::OpenDirectory::open(source_version_dir);
  if (!source_dir) return;
  auto modules = source_dir->items();
  std::sort(modules.begin(), modules.end(),
            [](const detail::DirItem& a, const detail::DirItem& b) { return a.name < b.name; });
  std::error_code error;
  std::filesystem::create_directories(target_version_dir, error);
  if (error) {
    detail::throw_errno("cannot create", target_version_dir, error.value(),
                        detail::destination_fix);
  }
  auto target = detail::OpenDirectory::open(target_version_dir);
  if (!target) return;                       // removed while we work: the next transfer will do it
  std::map<std::string, bool> target_names;  // name -> is a folder
  {
    const auto items = target->items();
    report.stale_temps_removed += detail::remove_stale_temps(target_version_dir, items);
    for (const auto& item : items) target_names.emplace(item.name, item.is_dir);
  }

  std::erase_if(modules, [](const detail::DirItem& module) {
    return !module.is_dir || !is_module_dir_name(module.name);
  });
  detail::for_each_in_parallel(
      modules.size(), jobs, report, [&](std::size_t i, TransferReport& part) {
        const auto& module = modules[i];
        const auto listed = target_names.find(module.name);
        try {
          transfer_entry(
              *source_dir, *target, source_version_dir, target_version_dir, module.name,
              listed == target_names.end() ? std::nullopt : std::optional(listed->second),
              direction, part);
        } catch (const Error& e) {
          // One bad entry must not cost every other entry its copy (and a recompile).
          part.bad.push_back({source_version_dir / module.name, e.what()});
        }
      });
}

TransferReport transfer(const std::filesystem::path& from, const std::filesystem::path& to,
                        Direction direction, const TransferOptions& options) {
  detail::check_distinct_roots(from, to, "compile cache");
  TransferReport report;
  const auto versions = detail::list_directory(from);
  if (!versions) {
    report.source_exists = false;
    return report;
  }
  for (const auto& version : *versions) {
    if (!version.is_dir || !is_version_dir_name(version.name)) continue;
    if (options.compiler_version &&
        version.name.substr(version_dir_prefix.size()) != *options.compiler_version) {
      continue;
    }
    transfer_version(from / version.name, to / version.name, direction,
                     options.jobs == 0 ? default_transfer_jobs() : options.jobs, report);
  }
  return report;
}

}  // namespace

unsigned default_transfer_jobs() {
  return std::clamp(std::thread::hardware_concurrency(), 4U, 16U);
}

TransferReport& TransferReport::operator+=(const TransferReport& other) {
  copied += other.copied;
  copied_bytes += other.copied_bytes;
  replaced += other.replaced;
  present += other.present;
  present_bytes += other.present_bytes;
  not_complete += other.not_complete;
  not_complete_bytes += other.not_complete_bytes;
  busy += other.busy;
  busy_bytes += other.busy_bytes;
  vanished += other.vanished;
  stale_temps_removed += other.stale_temps_removed;
  source_exists = source_exists && other.source_exists;
  bad.insert(bad.end(), other.bad.begin(), other.bad.end());
  std::sort(bad.begin(), bad.end(),
            [](const BadEntry& a, const BadEntry& b) { return a.path < b.path; });
  return *this;
}

TransferReport pull(const std::filesystem::path& shared_root,
                    const std::filesystem::path& local_root, const TransferOptions& options) {
  return transfer(shared_root, local_root, Direction::kPull, options);
}

TransferReport move_in(const std::filesystem::path& private_root,
                       const std::filesystem::path& local_root, const TransferOptions& options) {
  return transfer(private_root, local_root, Direction::kMoveIn, options);
}

TransferReport push(const std::filesystem::path& local_root,
                    const std::filesystem::path& shared_root, const TransferOptions& options) {
  return transfer(local_root, shared_root, Direction::kPush, options);
}

nlohmann::json to_json(const TransferReport& report) {
  auto part = [](std::size_t entries, std::uintmax_t bytes) {
    return nlohmann::json{{"entries", entries}, {"bytes", bytes}};
  };
  return {{"copied", part(report.copied, report.copied_bytes)},
          {"replaced", report.replaced},
          {"present", part(report.present, report.present_bytes)},
          {"not_complete", part(report.not_complete, report.not_complete_bytes)},
          {"busy", part(report.busy, report.busy_bytes)},
          {"vanished", report.vanished},
          {"skipped", part(report.skipped(), report.skipped_bytes())},
          {"stale_temps_removed", report.stale_temps_removed},
          {"source_exists", report.source_exists}};
}

}  // namespace trn::cache
