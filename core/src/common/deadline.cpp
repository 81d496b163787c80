#include "trn/common/deadline.hpp"

#include <algorithm>

namespace trn {

std::chrono::milliseconds time_left(SteadyClock::time_point deadline, const TimeSource& now) {
  if (deadline == SteadyClock::time_point::max()) return std::chrono::milliseconds::max();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now());
  return std::max(left, std::chrono::milliseconds(0));
}

}  // namespace trn
