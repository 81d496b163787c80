#include "trn/topology/kernel_release.hpp"

#include <charconv>
#include <string>

#include "trn/common/error.hpp"

namespace trn::topology {

KernelVersion parse_kernel_release(std::string_view release, std::string_view what) {
  KernelVersion version;
  const char* end = release.data() + release.size();
  auto [p1, e1] = std::from_chars(release.data(), end, version.major);
  bool ok = e1 == std::errc() && p1 != end && *p1 == '.';
  if (ok) {
    auto [p2, e2] = std::from_chars(p1 + 1, end, version.minor);
    ok = e2 == std::errc();
  }
  if (!ok) {
    throw Error(std::string(what) + ": '" + std::string(release) +
                "' is not a kernel release (expected major.minor..., e.g. 5.10.217-x86_64): "
                "check the filesystem root");
  }
  return version;
}

bool efa_needs_fork_safe(const KernelVersion& version) {
  return version.major < 5 || (version.major == 5 && version.minor < 15);
}

}  // namespace trn::topology
