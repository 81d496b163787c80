// neuron-ls reads the devices through the driver (ioctls), sysfs through the kernel's class
// devices: a device the runtime cannot use can still look present in sysfs.
#include "neuron_ls_comparison.hpp"

#include <algorithm>

#include "trn/common/error.hpp"

namespace trn::health {
namespace {

constexpr const char* kNeuronLsComparisonName = "neuron-devices";

// neuron-ls's nc_count counts logical NeuronCores: physical ones / logical_neuroncore_config
// (trn2 with NEURON_LOGICAL_NC_CONFIG=2 lists 4 of a device's 8).
std::optional<std::string> core_count_disagreement(const topology::NeuronLsOutput& output,
                                                   const topology::NeuronLsDevice& device,
                                                   const Expected& expected) {
  if (!device.core_count) return std::nullopt;
  const unsigned config = device.logical_core_config.value_or(1);
  if (*device.core_count * config == expected.cores_per_device) return std::nullopt;
  std::string listed = std::to_string(*device.core_count) + " NeuronCores";
  if (config != 1) listed += " at logical config " + std::to_string(config);
  return output.origin + " lists neuron" + std::to_string(device.index) + " with " + listed +
         ", a " + expected.device_name + " has " + std::to_string(expected.cores_per_device);
}

}  // namespace

std::optional<CheckResult> compare_with_neuron_ls(const NodeCheckOptions& options,
                                                  const Expected& expected, std::string& evidence) {
  std::optional<topology::NeuronLsOutput> output = options.neuron_ls;
  if (!output && options.neuron_ls_program) {
    const auto limit = std::min(kNeuronLsLimit, time_left(options.deadline, options.now));
    if (limit.count() <= 0) {
      return CheckResult{kNeuronLsComparisonName, CheckStatus::kWarning,
                         evidence + "; neuron-ls not run: the node check's 10 s budget is spent"};
    }
    try {
      output = topology::run_neuron_ls(*options.neuron_ls_program, limit, options.run_tool);
    } catch (const Error& error) {  // too slow, or failed: the check could not run
      return CheckResult{kNeuronLsComparisonName, CheckStatus::kWarning,
                         evidence + "; " + error.what()};
    }
  }
  if (!output) return std::nullopt;  // not installed
  std::vector<topology::NeuronLsDevice> listed;
  try {
    listed = topology::parse_neuron_ls(*output);
  } catch (const std::exception& error) {
    return CheckResult{kNeuronLsComparisonName, CheckStatus::kWarning, error.what()};
  }
  if (listed.size() != expected.devices) {
    return CheckResult{kNeuronLsComparisonName, CheckStatus::kFailed,
                       output->origin + " lists " + std::to_string(listed.size()) + " devices, " +
                           expected.instance_type + " has " + std::to_string(expected.devices)};
  }
  for (const auto& device : listed) {
    if (auto disagreement = core_count_disagreement(*output, device, expected)) {
      return CheckResult{kNeuronLsComparisonName, CheckStatus::kFailed, std::move(*disagreement)};
    }
  }
  evidence += "; " + output->origin + " agrees";
  return std::nullopt;
}

}  // namespace trn::health
