#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "trn/plan/profile.hpp"

namespace trn::plan {

// Upper bounds of the whole-number keys (and of trn-run --nodes): far above any real job, low
// enough that the plan's products (micro_batch x data-parallel degree, ...) cannot overflow.
inline constexpr std::int64_t kMaxProfileNodes = 65536;  // --nodes, reference_nodes
inline constexpr std::int64_t kMaxSequences = 1048576;   // seq_len, micro_batch
inline constexpr std::int64_t kMaxDegree = 1024;         // tp, pp, cpu_workers_per_node
inline constexpr std::int64_t kMaxCount = 2147483647;    // global_batch, steps, ... (2^31 - 1)
inline constexpr std::int64_t kMaxSeed = 4294967295;     // numpy takes seeds below 2^32

// One profile key, for help texts and messages.
struct ProfileKey {
  std::string_view key;      // as written in a profile, e.g. "micro_batch"; "env" is a mapping
  std::string_view accepts;  // e.g. "a whole number >= 1", "strong or weak"
  std::string_view meaning;  // e.g. "sequences per worker per micro-step"
};

// Every key a profile may hold, in the order the documentation lists them.
const std::vector<ProfileKey>& profile_keys();

// Sets one key from text, with the type checks of a profile file: `key` is a profile key or
// "env.NAME"; "command" is split into words like a shell would. Throws trn::Error naming the
// key and value, the problem and what is accepted ("unknown key 'micro_bacth' (did you mean
// 'micro_batch'?)"). The launcher maps its common flags to these keys.
void apply_override(Profile& profile, std::string_view key, std::string_view value);

// `--set key=value`: the same as apply_override, the message naming the --set option.
void apply_set_option(Profile& profile, std::string_view assignment);

}  // namespace trn::plan
