#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "trn/cache/entry.hpp"

namespace trn::cache {

// Nothing bounds the compiler's cache (docs/hardware.md#compile-cache); prune does. Locked
// entries are never removed. The rules combine: failed entries first, then entries unused for
// longer than older_than, then the least recently used until the cache fits max_size.
struct PruneOptions {
  bool failed = false;
  std::optional<std::chrono::seconds> older_than;
  std::optional<std::uintmax_t> max_size;  // bytes, over all entries (locked ones included)
  bool dry_run = false;                    // report what would go, remove nothing
};

struct PruneReport {
  std::vector<Entry> removed;  // in the order they went
  std::uintmax_t removed_bytes = 0;
  std::size_t remaining_entries = 0;
  std::uintmax_t remaining_bytes = 0;
};

// The entries the options select, in removal order (pure: no file is touched).
std::vector<Entry> select_for_prune(std::vector<Entry> entries, const PruneOptions& options,
                                    std::chrono::system_clock::time_point now);

PruneReport prune(const std::filesystem::path& root, const PruneOptions& options);

}  // namespace trn::cache
