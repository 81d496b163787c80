#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace trn::health {

// What the node looked like at its last clean check: the Neuron error counters (they count from
// driver load and are only cleared by writing them) and the last kernel log record read, so
// that only errors since then make the node unhealthy. Valid for one boot.
struct Baseline {
  std::string boot_id;
  std::map<std::string, std::int64_t> counters;  // "neuron3/stats/hardware/mem_ecc_uncorrected"
  std::uint64_t kernel_log_sequence = 0;         // records up to this one were seen
  // Why a baseline file that is there was not used (unreadable, damaged, a counter that is no
  // whole number): the checks then count from driver load and say so. "" when none is there,
  // or it is this boot's.
  std::string unusable;
};

inline constexpr const char* kBaselineFile = "baseline.json";

// The baseline in `state_dir` for this boot; an empty one (all counters 0, every kernel log
// record counts) when there is none, it is from another boot, or it cannot be used (then with
// `unusable` saying why).
Baseline read_baseline(const std::filesystem::path& state_dir, const std::string& boot_id);

// Written atomically (mode 0644: jobs of every user read it). Throws trn::Error.
void write_baseline(const std::filesystem::path& state_dir, const Baseline& baseline);

}  // namespace trn::health
