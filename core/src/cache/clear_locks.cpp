#include "trn/cache/clear_locks.hpp"

#include <unistd.h>

#include <cerrno>
#include <string>

#include "directory.hpp"
#include "file_times.hpp"
#include "trn/cache/compiler_processes.hpp"
#include "trn/cache/layout.hpp"
#include "trn/cache/scan.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {

ClearLocksReport clear_locks(const std::filesystem::path& root, const ClearLocksOptions& options) {
  const auto compilers = find_compiler_processes(options.proc_root);
  if (!compilers.empty()) {
    std::string running;
    for (const auto& process : compilers) {
      running += (running.empty() ? "" : ", ") + process.name + " (pid " +
                 std::to_string(process.pid) + ")";
    }
    throw Error("compile cache " + root.string() + ": not clearing locks while " + running +
                (compilers.size() == 1 ? " runs" : " run") +
                " on this node; its locks may be live. Run clear-locks after it ends");
  }
  ClearLocksReport report;
  const auto cutoff = std::chrono::system_clock::now() - options.older_than;
  for (const auto& entry : scan(root)) {
    if (entry.state != EntryState::kLocked) continue;
    auto dir = detail::OpenDirectory::open(entry.path);
    if (!dir) continue;
    for (const auto& item : dir->items()) {
      if (item.is_dir || !is_lock_file_name(item.name)) continue;
      const auto info = dir->stat_of(item.name);
      if (!info) continue;
      if (detail::modification_time(*info) > cutoff) {
        report.kept_recent++;
        continue;
      }
      const auto lock = entry.path / item.name;
      if (::unlink(lock.c_str()) == 0) {
        report.removed.push_back(lock);
      } else if (errno != ENOENT) {
        detail::throw_errno("cannot remove the lock", lock, errno, "check the cache's permissions");
      }
    }
  }
  return report;
}

}  // namespace trn::cache
