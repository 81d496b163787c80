#include "trn/cache/neff_transfer.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <map>
#include <system_error>
#include <vector>

#include "file_copy.hpp"
#include "parallel_work.hpp"
#include "staging.hpp"
#include "transfer_roots.hpp"
#include "trn/cache/neff_layout.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {
namespace {

// The size of the regular file at `path`; nullopt when there is none.
std::optional<std::uintmax_t> regular_file_size(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  return static_cast<std::uintmax_t>(info.st_size);
}

// One NEFF: present, copied (a staged copy renamed over the destination's path) or vanished.
void transfer_neff(const std::filesystem::path& from, const std::filesystem::path& to,
                   const NeffEntry& entry, bool replace_other_size, TransferReport& report) {
  const auto relative = neff_relative_path(entry.key);
  const auto target = to / relative;
  const auto existing = regular_file_size(target);
  if (existing) {
    if (*existing == entry.bytes || !replace_other_size) {
      report.present++;  // (a push never replaces a NEFF of the shared tier)
      report.present_bytes += entry.bytes;
      return;
    }
  }
  const auto shard = target.parent_path();
  std::error_code error;
  std::filesystem::create_directories(shard, error);
  if (error) detail::throw_errno("cannot create", shard, error.value(), detail::destination_fix);
  const auto staging = detail::make_temp_dir(shard);
  std::uintmax_t bytes = 0;
  try {
    const auto staged = staging / relative.filename();
    if (detail::copy_regular_file(from / relative, staged, &bytes) ==
        detail::CopyOutcome::kSourceVanished) {
      detail::remove_tree(staging);
      report.vanished++;
      return;
    }
    // rename() replaces a file atomically: a reader opens the old NEFF or the new one.
    if (::rename(staged.c_str(), target.c_str()) != 0)
      detail::throw_errno("cannot move the copied NEFF to", target, errno, detail::destination_fix);
  } catch (...) {
    detail::remove_tree(staging);
    throw;
  }
  detail::remove_tree(staging);
  report.copied++;
  report.copied_bytes += bytes;
  if (existing) report.replaced++;
}

TransferReport transfer_neffs(const std::filesystem::path& from, const std::filesystem::path& to,
                              bool replace_other_size, const TransferOptions& options) {
  detail::check_distinct_roots(from, to, "NEFF cache");
  TransferReport report;
  const auto entries = scan_neffs(from);
  if (!entries) {
    report.source_exists = false;
    return report;
  }
  // One task per shard folder of the destination: it clears the staging folders that killed
  // copies left there (one listing of the shard) and then transfers the shard's NEFFs, so a pull
  // of a cache that is already whole costs no serial pass over its folders.
  std::map<std::filesystem::path, std::vector<const NeffEntry*>> by_shard;
  for (const auto& entry : *entries)
    by_shard[(to / neff_relative_path(entry.key)).parent_path()].push_back(&entry);
  const std::vector shards(by_shard.begin(), by_shard.end());
  const auto jobs = options.jobs == 0 ? default_transfer_jobs() : options.jobs;
  detail::for_each_in_parallel(
      shards.size(), jobs, report, [&](std::size_t i, TransferReport& part) {
        const auto& [shard, shard_entries] = shards[i];
        part.stale_temps_removed += detail::remove_stale_temps(shard);
        for (const auto* entry : shard_entries) {
          try {
            transfer_neff(from, to, *entry, replace_other_size, part);
          } catch (const Error& e) {
            // One bad NEFF must not cost the others their copy.
            part.bad.push_back({from / neff_relative_path(entry->key), e.what()});
          }
        }
      });
  return report;
}

}  // namespace

TransferReport pull_neffs(const std::filesystem::path& shared_neff_root,
                          const std::filesystem::path& local_root, const TransferOptions& options) {
  return transfer_neffs(shared_neff_root, local_root, /*replace_other_size=*/true, options);
}

TransferReport push_neffs(const std::filesystem::path& local_root,
                          const std::filesystem::path& shared_neff_root,
                          const TransferOptions& options) {
  return transfer_neffs(local_root, shared_neff_root, /*replace_other_size=*/false, options);
}

}  // namespace trn::cache
