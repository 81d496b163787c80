// EFA devices present as the instance type documents them, and libfabric's efa provider usable
// where EFA is expected (docs/health.md#efa): without them collectives fall back or hang.
#include <algorithm>
#include <set>

#include "../topology/efa_sysfs.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health {
namespace {

constexpr const char* kEfaCheckName = "efa";

}  // namespace

CheckResult check_efa(const NodeCheckOptions& options, const Expected& expected) {
  if (expected.efa_devices == 0) {
    return {kEfaCheckName, CheckStatus::kSkipped,
            "no EFA expected (" +
                (expected.instance_type.empty() ? std::string("instance type unknown")
                                                : expected.instance_type) +
                ")"};
  }
  std::set<std::string> present;
  try {
    for (const auto& device : topology::read_efa_devices(options.fsroot))
      present.insert(device.pci.to_string());
  } catch (const std::exception& error) {
    return {kEfaCheckName, CheckStatus::kWarning,
            std::string("cannot list EFA devices: ") + error.what()};
  }
  const auto want = std::to_string(expected.efa_devices);
  if (present.size() < expected.efa_devices) {
    std::string missing;
    for (const auto& [pci, devices] : expected.efa_served) {
      if (present.count(pci)) continue;
      missing.append(missing.empty() ? "" : "; ").append(pci).append(" (serves ").append(devices);
      missing += ")";
    }
    return {kEfaCheckName, CheckStatus::kFailed,
            std::to_string(present.size()) + " of " + want + " EFA devices (" +
                expected.instance_type + "): " + missing + " missing"};
  }
  std::string evidence = want + " EFA devices";
  if (!options.fabric) return {kEfaCheckName, CheckStatus::kOk, evidence + "; libfabric not asked"};
  // fi_getinfo cannot be interrupted: a provider that hangs is left behind at the deadline.
  const auto asked =
      call_within<FabricProviders>(time_left(options.deadline, options.now), options.fabric);
  if (!asked) {
    return {kEfaCheckName, CheckStatus::kWarning,
            evidence + "; libfabric's fi_getinfo did not answer within the node check's 10 s"};
  }
  const auto& fabric = *asked;
  const auto& providers = fabric.providers;
  if (std::find(providers.begin(), providers.end(), "efa") == providers.end()) {
    std::string seen = fabric.error;
    if (seen.empty()) {
      for (const auto& p : providers) seen += (seen.empty() ? "" : ", ") + p;
      seen = "providers: " + (seen.empty() ? std::string("none") : seen);
    }
    return {kEfaCheckName, CheckStatus::kFailed,
            "libfabric offers no efa provider (" + seen +
                "); install the EFA software (fi_info -p efa)"};
  }
  return {kEfaCheckName, CheckStatus::kOk, evidence + "; libfabric efa provider usable"};
}

}  // namespace trn::health
