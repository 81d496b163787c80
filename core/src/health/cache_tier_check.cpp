// The node-local compile-cache tier: writable, with free space above a threshold
// (docs/health.md#cache-tier). A full or read-only disk fails every compile on the node.
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trn/common/unique_fd.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health {
namespace {

constexpr const char* kCacheTierCheckName = "cache-tier";

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  return text;
}

CheckResult inspect(const NodeCheckOptions& options) {
  if (!options.cache_dir)
    return {kCacheTierCheckName, CheckStatus::kSkipped, "no node-local cache tier given"};
  const auto& dir = *options.cache_dir;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return {kCacheTierCheckName, CheckStatus::kWarning,
            dir.string() + " is not a directory (not made yet?)"};
  }
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) {
    return {kCacheTierCheckName, CheckStatus::kWarning,
            "cannot stat the file system of " + dir.string() + ": " + std::strerror(errno)};
  }
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes < options.min_free_bytes) {
    return {
        kCacheTierCheckName, CheckStatus::kFailed,
        dir.string() + " has " + gib(free_bytes) + " free, below " + gib(options.min_free_bytes)};
  }
  const auto probe = dir / (".trn-health-probe." + std::to_string(::getpid()));
  UniqueFd fd(::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    const int error = errno;
    if (error == EACCES || error == EPERM) {
      // Another user's directory: not a node fault.
      return {kCacheTierCheckName, CheckStatus::kWarning,
              "cannot write to " + dir.string() + " as this user: " + std::strerror(error)};
    }
    return {kCacheTierCheckName, CheckStatus::kFailed,
            "cannot write to " + dir.string() + ": " + std::strerror(error)};
  }
  const char byte = 0;
  const bool written = ::write(fd.get(), &byte, 1) == 1 && ::fsync(fd.get()) == 0;
  const int error = errno;
  fd.close();
  ::unlink(probe.c_str());
  if (!written) {
    return {kCacheTierCheckName, CheckStatus::kFailed,
            "cannot write to " + dir.string() + ": " + std::strerror(error)};
  }
  return {kCacheTierCheckName, CheckStatus::kOk,
          dir.string() + " writable, " + gib(free_bytes) + " free"};
}

}  // namespace

CheckResult check_cache_tier(const NodeCheckOptions& options) {
  CheckResult result = inspect(options);
  if (result.status == CheckStatus::kFailed && !options.cache_dir_is_node_tier) {
    // A job's cache (a user's --neuron-cache, say) that is full is the job's problem: never
    // a reason to drain the node.
    result.status = CheckStatus::kWarning;
    result.evidence += " (the job's compile cache, not the node's tier: not a node fault)";
  }
  return result;
}

}  // namespace trn::health
