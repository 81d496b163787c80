#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trn/plan/profile.hpp"

namespace trn::plan {

// The batch arithmetic of one profile on one node count.
struct Scale {
  std::int64_t world_size = 0;
  std::int64_t data_parallel = 0;
  std::int64_t grad_accum = 0;
  std::int64_t global_batch = 0;
  double batch_factor = 1;  // global_batch / the profile's global_batch
};

// Throws trn::Error, naming the profile and node count, when the profile cannot run there.
Scale scale_for(const Profile& profile, std::int64_t nodes, std::int64_t workers_per_node);

// "1, 2, 4" (at most `shown` numbers, then ", ...")
std::string list_numbers(const std::vector<std::int64_t>& numbers, std::size_t shown = 16);

}  // namespace trn::plan
