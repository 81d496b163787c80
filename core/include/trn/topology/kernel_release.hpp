#pragma once

#include <string_view>

namespace trn::topology {

struct KernelVersion {
  unsigned major = 0;
  unsigned minor = 0;
};

// "5.10.217-205.860.amzn2.x86_64" -> 5.10; throws trn::Error naming `what` when the text does
// not start with major.minor.
KernelVersion parse_kernel_release(std::string_view release, std::string_view what);

// EFA needs FI_EFA_FORK_SAFE=1 on kernels older than 5.15 (docs/hardware.md#efa).
bool efa_needs_fork_safe(const KernelVersion& version);

}  // namespace trn::topology
