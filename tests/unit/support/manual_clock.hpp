#pragma once

// A clock for time-budget tests: it stands still until the test (or a tool's stand-in) moves it,
// so a test says exactly what is left of a budget and never waits one out. Copies read and move
// the same time.

#include <chrono>
#include <memory>

#include "trn/common/deadline.hpp"

namespace trn::test {

class ManualClock {
 public:
  SteadyClock::time_point now() const { return *now_; }
  void advance(std::chrono::milliseconds by) { *now_ += by; }
  // A deadline `left` from now.
  SteadyClock::time_point in(std::chrono::milliseconds left) const { return *now_ + left; }
  // This clock as an options struct's TimeSource; it keeps reading this clock's time.
  TimeSource source() const {
    return [now = now_] { return *now; };
  }

 private:
  // Any fixed start will do; far from SteadyClock's epoch so that no arithmetic goes negative.
  std::shared_ptr<SteadyClock::time_point> now_ =
      std::make_shared<SteadyClock::time_point>(std::chrono::hours(1000));
};

}  // namespace trn::test
