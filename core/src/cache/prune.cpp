#include "trn/cache/prune.hpp"

#include <algorithm>
#include <numeric>

#include "staging.hpp"
#include "trn/cache/scan.hpp"

namespace trn::cache {

std::vector<Entry> select_for_prune(std::vector<Entry> entries, const PruneOptions& options,
                                    std::chrono::system_clock::time_point now) {
  std::uintmax_t total = 0;
  for (const auto& entry : entries) total += entry.bytes;
  // Least recently used first; the path breaks ties so the order is the same on every run.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.last_use != b.last_use ? a.last_use < b.last_use : a.path < b.path;
  });
  std::vector<Entry> chosen;
  std::vector<bool> taken(entries.size(), false);
  auto take_if = [&](auto&& rule) {
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (taken[i] || entries[i].state == EntryState::kLocked || !rule(entries[i])) continue;
      taken[i] = true;
      total -= entries[i].bytes;
      chosen.push_back(entries[i]);
    }
  };
  if (options.failed) take_if([](const Entry& e) { return e.state == EntryState::kFailed; });
  if (options.older_than) {
    const auto cutoff = now - *options.older_than;
    take_if([&](const Entry& e) { return e.last_use < cutoff; });
  }
  if (options.max_size) {
    take_if([&](const Entry&) { return total > *options.max_size; });
  }
  return chosen;
}

PruneReport prune(const std::filesystem::path& root, const PruneOptions& options) {
  auto entries = scan(root);
  PruneReport report;
  for (const auto& entry : entries) report.remaining_bytes += entry.bytes;
  report.remaining_entries = entries.size();
  for (auto& entry :
       select_for_prune(std::move(entries), options, std::chrono::system_clock::now())) {
    if (!options.dry_run) {
      // A compile may have taken the entry since the scan: leave it then.
      const auto now_state = read_entry(entry.path);
      if (!now_state || now_state->state == EntryState::kLocked) continue;
      if (!detail::remove_entry(entry.path)) continue;  // already gone
    }
    report.removed_bytes += entry.bytes;
    report.remaining_bytes -= entry.bytes;
    report.remaining_entries--;
    report.removed.push_back(std::move(entry));
  }
  return report;
}

}  // namespace trn::cache
