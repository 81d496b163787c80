#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trn/cache/entry.hpp"

namespace trn::cache {

struct StateTotals {
  std::size_t entries = 0;
  std::uintmax_t bytes = 0;
};

// What `trn-cache status` shows: entries and bytes per state.
struct CacheSummary {
  StateTotals done;
  StateTotals failed;
  StateTotals locked;
  StateTotals empty;
  std::vector<std::string> compiler_versions;  // those holding at least one entry, sorted

  StateTotals total() const;
  const StateTotals& of(EntryState state) const;
  StateTotals& of(EntryState state);
};

CacheSummary summarize(const std::vector<Entry>& entries);

// {"root": ..., "done": {"entries": N, "bytes": B}, ..., "total": {...},
//  "compiler_versions": [...]}
nlohmann::json to_json(const CacheSummary& summary, const std::filesystem::path& root);

}  // namespace trn::cache
