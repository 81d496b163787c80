#pragma once

#include <sys/resource.h>

#include <string>
#include <vector>

// EFA registers memory (locked pages) and opens many descriptors; login shells often have a
// 64 KiB memlock limit that Slurm propagates to the tasks (docs/hardware.md#efa).
namespace trn::spank {

inline constexpr rlim_t kMinOpenFiles = 65535;

struct LimitChange {
  int resource = 0;
  std::string name;  // RLIMIT_MEMLOCK
  struct rlimit before {};
  struct rlimit after {};
  bool changed() const {
    return before.rlim_cur != after.rlim_cur || before.rlim_max != after.rlim_max;
  }
};

// Raises this process's RLIMIT_MEMLOCK to unlimited and RLIMIT_NOFILE to at least 65535 (both
// soft and hard), as root may; where the kernel refuses the hard limit (no CAP_SYS_RESOURCE,
// or nofile above fs.nr_open), the soft limit goes up to the hard one. Never lowers a limit.
std::vector<LimitChange> raise_efa_limits();

std::string describe_limit(rlim_t value);  // "unlimited" or the number

}  // namespace trn::spank
