// neuron-ls reads the devices through the driver (ioctls), sysfs through the kernel's class
// devices: a device the runtime cannot use can still look present in sysfs.
#include "neuron_ls_comparison.hpp"

#include <algorithm>

#include "trn/common/error.hpp"

namespace trn::health {
namespace {

constexpr const char* kCheck = "neuron-devices";

}  // namespace

std::optional<CheckResult> compare_with_neuron_ls(const NodeCheckOptions& options,
                                                  const Expected& expected, std::string& evidence) {
  std::optional<topology::NeuronLsOutput> output = options.neuron_ls;
  if (!output && options.neuron_ls_program) {
    const auto limit = std::min(kNeuronLsLimit, time_left(options.deadline));
    if (limit.count() <= 0) {
      return CheckResult{kCheck, CheckStatus::kWarning,
                         evidence + "; neuron-ls not run: the node check's 10 s budget is spent"};
    }
    try {
      output = topology::run_neuron_ls(*options.neuron_ls_program, limit);
    } catch (const Error& error) {  // too slow, or failed: the check could not run
      return CheckResult{kCheck, CheckStatus::kWarning, evidence + "; " + error.what()};
    }
  }
  if (!output) return std::nullopt;  // not installed
  std::vector<topology::NeuronLsDevice> listed;
  try {
    listed = topology::parse_neuron_ls(*output);
  } catch (const std::exception& error) {
    return CheckResult{kCheck, CheckStatus::kWarning, error.what()};
  }
  if (listed.size() != expected.devices) {
    return CheckResult{kCheck, CheckStatus::kFailed,
                       output->origin + " lists " + std::to_string(listed.size()) + " devices, " +
                           expected.instance_type + " has " + std::to_string(expected.devices)};
  }
  evidence += "; " + output->origin + " agrees";
  return std::nullopt;
}

}  // namespace trn::health
