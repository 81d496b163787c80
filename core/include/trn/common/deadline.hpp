#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

// Time budgets: what is left of one, and waiting for work that cannot be interrupted.
namespace trn {

using SteadyClock = std::chrono::steady_clock;

// Where a budget reads the time: SteadyClock::now, or a test's clock that moves only when the
// test moves it, so that what is left of a budget is exact and no test waits it out.
using TimeSource = std::function<SteadyClock::time_point()>;

// What is left until `deadline` by `now`, never negative; milliseconds::max() when the deadline
// is SteadyClock::time_point::max() (no budget).
std::chrono::milliseconds time_left(SteadyClock::time_point deadline,
                                    const TimeSource& now = SteadyClock::now);

// Runs `work` on a thread of its own and returns its result, or nullopt when it has not finished
// within `timeout` (milliseconds::max(): no limit); rethrows what it threw. For calls that
// cannot be interrupted (a library's fi_getinfo): on time-out the thread is left running,
// detached, and its result is dropped.
template <class T>
std::optional<T> call_within(std::chrono::milliseconds timeout, std::function<T()> work) {
  struct Shared {
    std::mutex mutex;
    std::condition_variable done;
    std::optional<T> result;
    std::exception_ptr error;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, work = std::move(work)] {
    std::optional<T> result;
    std::exception_ptr error;
    try {
      result = work();
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard lock(shared->mutex);
    shared->result = std::move(result);
    shared->error = error;
    shared->done.notify_all();
  }).detach();
  std::unique_lock lock(shared->mutex);
  const auto finished = [&] { return shared->result.has_value() || shared->error != nullptr; };
  if (timeout == std::chrono::milliseconds::max()) {
    shared->done.wait(lock, finished);  // no budget (wait_for would overflow)
  } else {
    shared->done.wait_for(lock, timeout, finished);
  }
  if (shared->error) std::rethrow_exception(shared->error);
  return shared->result;
}

}  // namespace trn
