// Uncorrected ECC counters per device and hardware errors per NeuronCore (docs/health.md
// #counters). They count from driver load, so only a rise since the node's last clean check
// makes it unhealthy; the evidence names device, counter and value.
#include <algorithm>

#include "../topology/neuron_sysfs.hpp"
#include "../topology/sysfs.hpp"
#include "counter_reading.hpp"
#include "trn/common/error.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health {
namespace {

constexpr const char* kErrorCountersCheckName = "error-counters";
constexpr std::string_view kDeviceCounters[] = {
    "mem_ecc_uncorrected", "mem_ecc_repairable_uncorrected", "sram_ecc_uncorrected"};

// The entries of `dir` (sorted) that `keep` accepts.
template <typename Keep>
std::vector<std::string> entries(const std::filesystem::path& dir, Keep keep) {
  auto names = topology::sysfs::list_directory(dir);
  std::erase_if(names, [&](const std::string& name) { return !keep(name); });
  return names;
}

// The counter directory `key` below a device ("neuron3"): its `total`, in the baseline as
// "neuron3/<key>".
void read_device_counter(const std::filesystem::path& device_root, const std::string& key,
                         const std::string& label, const Baseline& baseline,
                         std::map<std::string, std::int64_t>& counters, CounterReading& reading) {
  read_counter(device_root / key / "total", device_root.filename().string() + "/" + key, label,
               baseline, counters, reading);
}

}  // namespace

CheckResult check_error_counters(const NodeCheckOptions& options,
                                 std::map<std::string, std::int64_t>& counters) {
  const auto base = options.fsroot / "sys/devices/virtual/neuron_device";
  const auto is_device = [](const std::string& name) {
    return topology::neuron_device_index(name).has_value();
  };
  const auto is_core = [](const std::string& name) {
    return name.size() > 11 && name.starts_with("neuron_core");
  };
  CounterReading reading;
  try {
    const auto devices = entries(base, is_device);
    if (devices.empty())
      return {kErrorCountersCheckName, CheckStatus::kSkipped, "no Neuron devices"};
    for (const auto& device : devices) {
      const auto root = base / device;
      for (const auto counter : kDeviceCounters) {
        read_device_counter(root, "stats/hardware/" + std::string(counter),
                            device + " " + std::string(counter), options.baseline, counters,
                            reading);
      }
      for (const auto& core : entries(root, is_core)) {
        std::string label = device;
        label.append(" ").append(core).append(" hw_error");
        read_device_counter(root, core + "/stats/status/hw_error", label, options.baseline,
                            counters, reading);
      }
    }
  } catch (const Error& error) {  // an unreadable folder: the check could not run
    return {kErrorCountersCheckName, CheckStatus::kWarning, error.what()};
  }
  if (auto verdict = counter_verdict(kErrorCountersCheckName, reading)) return *verdict;
  if (reading.read == 0) {
    return {kErrorCountersCheckName, CheckStatus::kWarning,
            "no error counters under " + base.string() + " (Neuron driver too old?)"};
  }
  return {kErrorCountersCheckName, CheckStatus::kOk,
          std::to_string(reading.read) + " counters at or below the last clean check"};
}

}  // namespace trn::health
