#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trn/health/baseline.hpp"
#include "trn/health/check_result.hpp"

namespace trn::health {

// Error counters that count from driver load and are never cleared by a reboot of the job (the
// Neuron sysfs counters, EFA's hw_counters): only a rise above the node's last clean check makes
// it unhealthy (docs/health.md#counters). One reading gathers what a check read.
struct CounterReading {
  std::vector<std::string> rises;     // "neuron3 mem_ecc_uncorrected 2 (0 at the last clean check)"
  std::vector<std::string> problems;  // unreadable or garbage counters
  unsigned read = 0;
};

// Reads the whole number in `file` (a missing file is skipped: older drivers lack some
// counters), records it under `key` in `counters` (the next baseline) and adds a rise above the
// baseline's value for `key` to the reading, named by `label`.
void read_counter(const std::filesystem::path& file, const std::string& key,
                  const std::string& label, const Baseline& baseline,
                  std::map<std::string, std::int64_t>& counters, CounterReading& reading);

// FAILED with the first rise as evidence ("and N more" when there are others), else a warning
// naming the first unreadable counter, else nullopt (the caller says what was fine).
std::optional<CheckResult> counter_verdict(const std::string& check, const CounterReading& reading);

}  // namespace trn::health
