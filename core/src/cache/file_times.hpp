#pragma once

#include <sys/stat.h>

#include <chrono>

namespace trn::cache::detail {

inline std::chrono::system_clock::time_point to_time_point(const timespec& time) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(time.tv_sec) + std::chrono::nanoseconds(time.tv_nsec)));
}

inline std::chrono::system_clock::time_point access_time(const struct stat& info) {
  return to_time_point(info.st_atim);
}

inline std::chrono::system_clock::time_point modification_time(const struct stat& info) {
  return to_time_point(info.st_mtim);
}

}  // namespace trn::cache::detail
