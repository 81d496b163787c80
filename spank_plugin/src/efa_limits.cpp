#include "efa_limits.hpp"

#include <algorithm>

namespace trn::spank {
namespace {

LimitChange raise(int resource, const char* name, rlim_t wanted) {
  LimitChange change;
  change.resource = resource;
  change.name = name;
  ::getrlimit(resource, &change.before);
  change.after = change.before;
  const auto at_least = [wanted](rlim_t value) {
    if (value == RLIM_INFINITY || wanted == RLIM_INFINITY) return RLIM_INFINITY;
    return std::max(value, wanted);
  };
  struct rlimit target {
    at_least(change.before.rlim_cur), at_least(change.before.rlim_max)
  };
  if (target.rlim_cur == change.before.rlim_cur && target.rlim_max == change.before.rlim_max) {
    return change;
  }
  if (::setrlimit(resource, &target) != 0) {
    // Not allowed above the hard limit: go as far as it allows.
    target = {change.before.rlim_max, change.before.rlim_max};
    if (::setrlimit(resource, &target) != 0) return change;
  }
  ::getrlimit(resource, &change.after);
  return change;
}

}  // namespace

std::vector<LimitChange> raise_efa_limits() {
  return {raise(RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", RLIM_INFINITY),
          raise(RLIMIT_NOFILE, "RLIMIT_NOFILE", kMinOpenFiles)};
}

std::string describe_limit(rlim_t value) {
  return value == RLIM_INFINITY ? std::string("unlimited") : std::to_string(value);
}

}  // namespace trn::spank
