// An EFA device that stopped answering its driver (docs/health.md#efa-errors): the EFA driver
// counts every admin command the device never completed in the device's `no_completion_cmds`
// hw_counter and takes its admin queue out of service. The counter counts from driver load, so
// only a rise since the node's last clean check makes the node unhealthy; the evidence names the
// EFA device, its PCI function, the Neuron devices it serves and the counter.
#include "../topology/efa_sysfs.hpp"
#include "counter_reading.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health {
namespace {

constexpr const char* kEfaErrorsCheckName = "efa-errors";
constexpr const char* kNoCompletionCounter = "no_completion_cmds";
// Device-level hw_counters; drivers before the split into device and port statistics kept
// every counter under the port (EFA driver release notes: "Split hardware stats to device and
// port stats"). EFA has one port.
constexpr const char* kCounterFolders[] = {"hw_counters", "ports/1/hw_counters"};

}  // namespace

CheckResult check_efa_errors(const NodeCheckOptions& options, const Expected& expected,
                             std::map<std::string, std::int64_t>& counters) {
  std::vector<topology::EfaDevice> devices;
  try {
    devices = topology::read_efa_devices(options.fsroot);
  } catch (const std::exception& error) {
    return {kEfaErrorsCheckName, CheckStatus::kWarning,
            std::string("cannot list EFA devices: ") + error.what()};
  }
  if (devices.empty()) return {kEfaErrorsCheckName, CheckStatus::kSkipped, "no EFA devices"};
  CounterReading reading;
  const auto base = options.fsroot / "sys/class/infiniband";
  for (const auto& device : devices) {
    const auto pci = device.pci.to_string();
    std::string label = device.name + " (" + pci;
    if (const auto served = expected.efa_served.find(pci); served != expected.efa_served.end())
      label += ", serves " + served->second;
    label += std::string(") ") + kNoCompletionCounter;
    for (const auto* folder : kCounterFolders) {
      const std::string key = "efa/" + device.name + "/" + folder + "/" + kNoCompletionCounter;
      read_counter(base / device.name / folder / kNoCompletionCounter, key, label, options.baseline,
                   counters, reading);
    }
  }
  if (auto verdict = counter_verdict(kEfaErrorsCheckName, reading)) return *verdict;
  if (reading.read == 0) {
    return {kEfaErrorsCheckName, CheckStatus::kSkipped,
            "the EFA driver shows no hw_counters/" + std::string(kNoCompletionCounter)};
  }
  return {kEfaErrorsCheckName, CheckStatus::kOk,
          std::to_string(devices.size()) + " EFA devices: " + kNoCompletionCounter +
              " at or below the last clean check"};
}

}  // namespace trn::health
