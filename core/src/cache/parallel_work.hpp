#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "trn/cache/transfer.hpp"

namespace trn::cache::detail {

// Calls work(i, report) for every i below `count` on `jobs` threads, each with its own report,
// added to `report` at the end. The first exception that is not a trn::Error of one entry (those
// are kept in `bad` by `work`) stops every thread at its next item and is rethrown.
template <typename Work>
void for_each_in_parallel(std::size_t count, unsigned jobs, TransferReport& report, Work work) {
  const auto threads = static_cast<std::size_t>(std::min<std::size_t>(jobs, count));
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) work(i, report);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::vector<TransferReport> reports(threads);
  {
    std::vector<std::jthread> workers;
    workers.reserve(threads);
    for (std::size_t t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        try {
          for (std::size_t i; !stop && (i = next++) < count;) work(i, reports[t]);
        } catch (...) {
          const std::lock_guard lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          stop = true;
        }
      });
    }
  }  // jthread joins
  for (const auto& part : reports) report += part;
  if (failure) std::rethrow_exception(failure);
}
}  // namespace trn::cache::detail
