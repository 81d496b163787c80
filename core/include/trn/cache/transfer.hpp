#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace trn::cache {

struct TransferOptions {
  // Only this compiler's entries (the folder neuronxcc-<version>); all versions when unset.
  std::optional<std::string> compiler_version;
  // Entries copied at once (threads); 0: default_transfer_jobs(). Each entry is still staged and
  // renamed into place alone, so any number gives the same tree (docs/hardware.md#compile-cache).
  unsigned jobs = 0;
};

// The hardware threads, at least 4 (a network file system such as FSx answers each file's
// open and create after a round trip: several in flight hide it) and at most 16.
unsigned default_transfer_jobs();

// What one pull or push did. Every source entry lands in exactly one of the counts.
struct TransferReport {
  std::size_t copied = 0;  // complete entries copied (including `replaced`)
  std::uintmax_t copied_bytes = 0;
  std::size_t replaced = 0;  // of `copied`: a destination entry that was not complete, or
                             // (pull only) whose neff differed, was replaced
  std::size_t present = 0;   // complete in both already: skipped without reading any content
  std::uintmax_t present_bytes = 0;
  std::size_t not_complete = 0;  // failed, locked or empty in the source: never copied
  std::uintmax_t not_complete_bytes = 0;
  std::size_t busy = 0;  // the destination entry is locked (a compile runs): left alone
  std::uintmax_t busy_bytes = 0;
  std::size_t vanished = 0;             // removed from the source while being copied
  std::size_t stale_temps_removed = 0;  // leftovers of killed copies, cleaned up
  bool source_exists = true;            // false: the source root is missing; nothing done
  // Entries that could not be copied (an unreadable file, a file where the destination's
  // folder should be): each skipped with its reason, the others still copied.
  struct BadEntry {
    std::filesystem::path path;
    std::string reason;
  };
  std::vector<BadEntry> bad;

  std::size_t skipped() const { return present + not_complete + busy + vanished + bad.size(); }
  // Adds another report's counts (one per worker of a parallel transfer); `bad` stays sorted
  // by path.
  TransferReport& operator+=(const TransferReport& other);
  std::uintmax_t skipped_bytes() const { return present_bytes + not_complete_bytes + busy_bytes; }
};

// Copies the complete entries (model.neff + model.done, no lock) of the shared tier that the
// node-local tier lacks, or holds incomplete, or holds with a different model.neff size. Each
// entry is copied into a temporary folder inside the destination's version folder and renamed
// into place, so a killed copy never leaves a half-written entry; the next transfer deletes
// such leftovers. Several entries are copied at once (`jobs`). Unchanged entries are compared by
// presence, model.done and model.neff size only, never by content. A missing destination is
// created; a missing source is reported (source_exists = false), not thrown. An entry that cannot
// be read or put in place is skipped and listed in `bad`; errors of the roots themselves throw
// trn::Error.
TransferReport pull(const std::filesystem::path& shared_root,
                    const std::filesystem::path& local_root, const TransferOptions& options = {});

// A pull from a folder private to the caller on the local root's file system (a spread's
// inbox): entries are renamed into place instead of copied, leaving the source without them.
TransferReport move_in(const std::filesystem::path& private_root,
                       const std::filesystem::path& local_root,
                       const TransferOptions& options = {});

// The same towards the shared tier, but a complete destination entry is never overwritten.
TransferReport push(const std::filesystem::path& local_root,
                    const std::filesystem::path& shared_root, const TransferOptions& options = {});

// {"copied": {"entries": N, "bytes": B}, "replaced": N, "present": {...}, "not_complete": {...},
//  "busy": {...}, "vanished": N, "stale_temps_removed": N, "source_exists": true}
nlohmann::json to_json(const TransferReport& report);

}  // namespace trn::cache
