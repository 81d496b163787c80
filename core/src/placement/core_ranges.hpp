#pragma once

// Splitting the step's logical NeuronCores between its tasks (internal).

#include <optional>
#include <vector>

#include "trn/common/id_list.hpp"

namespace trn::placement {

struct CoreRanges {
  unsigned cores_per_task = 0;
  std::vector<IdList> per_task;  // one contiguous range per task
};

// `available`: the step's logical NeuronCore ids. Each task gets K contiguous cores starting at
// a multiple of K (K = cores_per_task, default available / tasks, which must divide).
CoreRanges split_cores(const IdList& available, unsigned tasks,
                       std::optional<unsigned> cores_per_task);

}  // namespace trn::placement
