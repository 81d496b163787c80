#pragma once

#include <chrono>
#include <filesystem>
#include <vector>

namespace trn::cache {

struct ClearLocksOptions {
  // Only locks not modified for this long: a younger one may belong to a compile that a
  // process on another node (sharing the cache) runs now.
  std::chrono::seconds older_than = std::chrono::hours(1);
  std::filesystem::path proc_root = "/proc";
};

struct ClearLocksReport {
  std::vector<std::filesystem::path> removed;  // the *.lock files deleted
  std::size_t kept_recent = 0;                 // locks younger than older_than, left alone
};

// Deletes the stale *.lock files of every entry under `root` (what an interrupted compile
// leaves; `neuron_parallel_compile --command clear-locks` deletes them all, which is only safe
// when nothing compiles). Refuses, with a trn::Error naming the process, while a Neuron
// compiler runs on this node (find_compiler_processes).
ClearLocksReport clear_locks(const std::filesystem::path& root, const ClearLocksOptions& options);

}  // namespace trn::cache
