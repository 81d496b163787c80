#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace trn::run {

// The room left on the run directory's file system, against what the run writes there next.
struct RunDirectorySpace {
  std::uint64_t available_bytes = 0;   // what a job user may still write (statvfs f_bavail)
  std::uint64_t checkpoint_bytes = 0;  // the newest committed checkpoint's files; 0: none yet
  long checkpoint_step = -1;           // its step; -1: none
};

// The least room a run needs when it has no checkpoint yet: its logs, metrics and plan.
inline constexpr std::uint64_t kRunDirectoryFloorBytes = std::uint64_t{1} << 20;

// The space of `run_dir`'s file system (of its nearest existing parent while a new run's folder
// does not exist yet) and the size of its newest committed checkpoint (ckpt_S.json and every
// ckpt_S.* file beside it); nullopt when the file system cannot be asked.
std::optional<RunDirectorySpace> measure_run_directory_space(const std::filesystem::path& run_dir);

// "" when the run directory has room for one more checkpoint of the run (kRunDirectoryFloorBytes
// before the first); else one line, without "trn-run: ", naming the folder, the room left, what
// the run needs and the fix. A run there cannot save its progress: restarting it, on these nodes
// or others, redoes steps it can never keep - the storage's problem, never a node's.
std::string run_directory_full(const std::filesystem::path& run_dir,
                               const RunDirectorySpace& space);

// The same, measured now; "" when the file system cannot be asked.
std::string run_directory_full(const std::filesystem::path& run_dir);

}  // namespace trn::run
