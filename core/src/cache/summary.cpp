#include "trn/cache/summary.hpp"

#include <algorithm>

namespace trn::cache {

StateTotals CacheSummary::total() const {
  StateTotals sum;
  for (const auto* part : {&done, &failed, &locked, &empty}) {
    sum.entries += part->entries;
    sum.bytes += part->bytes;
  }
  return sum;
}

const StateTotals& CacheSummary::of(EntryState state) const {
  return const_cast<CacheSummary*>(this)->of(state);
}

StateTotals& CacheSummary::of(EntryState state) {
  switch (state) {
    case EntryState::kDone:
      return done;
    case EntryState::kFailed:
      return failed;
    case EntryState::kLocked:
      return locked;
    case EntryState::kEmpty:
      return empty;
  }
  return empty;
}

CacheSummary summarize(const std::vector<Entry>& entries) {
  CacheSummary summary;
  for (const auto& entry : entries) {
    auto& totals = summary.of(entry.state);
    totals.entries++;
    totals.bytes += entry.bytes;
    if (std::find(summary.compiler_versions.begin(), summary.compiler_versions.end(),
                  entry.compiler_version) == summary.compiler_versions.end()) {
      summary.compiler_versions.push_back(entry.compiler_version);
    }
  }
  std::sort(summary.compiler_versions.begin(), summary.compiler_versions.end());
  return summary;
}

nlohmann::json to_json(const CacheSummary& summary, const std::filesystem::path& root) {
  auto totals = [](const StateTotals& t) {
    return nlohmann::json{{"entries", t.entries}, {"bytes", t.bytes}};
  };
  return {{"root", root.string()},
          {"done", totals(summary.done)},
          {"failed", totals(summary.failed)},
          {"locked", totals(summary.locked)},
          {"empty", totals(summary.empty)},
          {"total", totals(summary.total())},
          {"compiler_versions", summary.compiler_versions}};
}

}  // namespace trn::cache
