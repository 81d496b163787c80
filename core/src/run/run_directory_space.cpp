#include "trn/run/run_directory_space.hpp"

#include <sys/statvfs.h>

#include <cstdio>

#include "trn/run/run_continuation.hpp"

namespace trn::run {
namespace {

std::string mebibytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

std::uint64_t checkpoint_bytes(const std::filesystem::path& run_dir, long step) {
  const auto prefix = "ckpt_" + std::to_string(step) + ".";
  std::uint64_t total = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(run_dir, error)) {
    if (!entry.path().filename().string().starts_with(prefix)) continue;
    std::error_code size_error;
    const auto size = entry.file_size(size_error);
    if (!size_error) total += size;
  }
  return total;
}

}  // namespace

std::optional<RunDirectorySpace> measure_run_directory_space(const std::filesystem::path& run_dir) {
  auto existing = run_dir.empty() ? std::filesystem::path(".") : run_dir;
  std::error_code error;
  while (!std::filesystem::exists(existing, error) && existing.has_relative_path())
    existing = existing.parent_path().empty() ? "." : existing.parent_path();
  struct statvfs file_system {};
  if (::statvfs(existing.c_str(), &file_system) != 0) return std::nullopt;
  RunDirectorySpace space;
  space.available_bytes = static_cast<std::uint64_t>(file_system.f_bavail) *
                          static_cast<std::uint64_t>(file_system.f_frsize);
  space.checkpoint_step = newest_checkpoint(run_dir);
  if (space.checkpoint_step >= 0)
    space.checkpoint_bytes = checkpoint_bytes(run_dir, space.checkpoint_step);
  return space;
}

std::string run_directory_full(const std::filesystem::path& run_dir,
                               const RunDirectorySpace& space) {
  const bool has_checkpoint = space.checkpoint_step >= 0 && space.checkpoint_bytes > 0;
  const auto needed = has_checkpoint ? space.checkpoint_bytes : kRunDirectoryFloorBytes;
  if (space.available_bytes >= needed) return "";
  return "run directory " + run_dir.string() + ": its file system has " +
         mebibytes(space.available_bytes) + " free, less than " +
         (has_checkpoint
              ? "one more checkpoint of this run (checkpoint " +
                    std::to_string(space.checkpoint_step) + " takes " + mebibytes(needed) + ")"
              : "the " + mebibytes(needed) + " a run needs for its logs") +
         ": the run cannot save its progress there; free space on it (or move the run to a "
         "larger one), then continue the run with --resume " +
         run_dir.string();
}

std::string run_directory_full(const std::filesystem::path& run_dir) {
  const auto space = measure_run_directory_space(run_dir);
  return space ? run_directory_full(run_dir, *space) : "";
}

}  // namespace trn::run
