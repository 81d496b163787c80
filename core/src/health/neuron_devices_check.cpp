// Neuron devices and NeuronCores present as the instance type documents them (docs/health.md
// #devices): a device the driver did not bring up is missing from sysfs while its PCI function
// is still there, and a job placed on the node would fail or hang.
#include <set>

#include "../topology/neuron_sysfs.hpp"
#include "../topology/sysfs.hpp"
#include "neuron_ls_comparison.hpp"
#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health {
namespace {

constexpr const char* kNeuronDevicesCheckName = "neuron-devices";

std::set<unsigned> sysfs_devices(const std::filesystem::path& dir) {
  std::set<unsigned> indices;
  for (const auto& name : topology::sysfs::list_directory(dir)) {
    if (const auto index = topology::neuron_device_index(name)) indices.insert(*index);
  }
  return indices;
}

std::string index_list(const std::vector<unsigned>& indices) {
  std::string text;
  for (std::size_t i = 0; i < indices.size() && i < 8; ++i)
    text += (i ? ", neuron" : "neuron") + std::to_string(indices[i]);
  if (indices.size() > 8) text += ", ...";
  return text;
}

}  // namespace

CheckResult check_neuron_devices(const NodeCheckOptions& options, const Expected& expected) {
  const auto dir = options.fsroot / "sys/devices/virtual/neuron_device";
  std::set<unsigned> present;
  try {
    present = sysfs_devices(dir);
  } catch (const Error& error) {  // an unreadable folder: the check could not run
    return {kNeuronDevicesCheckName, CheckStatus::kWarning, error.what()};
  }
  if (!expected.documented) {
    if (present.empty()) {
      return {kNeuronDevicesCheckName, CheckStatus::kSkipped,
              "no Neuron devices expected (" +
                  (expected.instance_type.empty() ? std::string("instance type unknown")
                                                  : expected.instance_type) +
                  ")"};
    }
    return {kNeuronDevicesCheckName, CheckStatus::kWarning,
            std::to_string(present.size()) + " Neuron device(s), but the instance type '" +
                expected.instance_type + "' has no documented count to compare with"};
  }
  const auto want = std::to_string(expected.devices);
  if (!std::filesystem::exists(dir)) {
    return {kNeuronDevicesCheckName, CheckStatus::kFailed,
            "Neuron driver not loaded: no " + dir.string() + " (" + expected.instance_type +
                " has " + want + " devices); load aws-neuronx-dkms or replace the node"};
  }
  std::vector<unsigned> missing;
  for (unsigned i = 0; i < expected.devices; ++i) {
    if (!present.count(i)) missing.push_back(i);
  }
  if (!missing.empty()) {
    return {kNeuronDevicesCheckName, CheckStatus::kFailed,
            std::to_string(present.size()) + " of " + want + " Neuron devices: " +
                index_list(missing) + " missing (" + expected.instance_type + ")"};
  }
  for (const unsigned index : present) {
    const auto file = dir / ("neuron" + std::to_string(index)) / "core_count";
    const FileRead read = try_read_text(file);
    if (read.status == FileRead::Status::kPermissionDenied) continue;  // root-only: not ours
    const auto cores = read.ok() ? parse_whole_number(trim(read.text)) : std::nullopt;
    if (!cores) {
      return {kNeuronDevicesCheckName, CheckStatus::kWarning,
              "cannot read a core count from " + file.string() + "; devices not compared"};
    }
    if (*cores != expected.cores_per_device) {
      return {kNeuronDevicesCheckName, CheckStatus::kFailed,
              "neuron" + std::to_string(index) + " has " + std::to_string(*cores) +
                  " NeuronCores, a " + expected.device_name + " has " +
                  std::to_string(expected.cores_per_device)};
    }
  }
  std::string evidence = want + " devices x " + std::to_string(expected.cores_per_device) +
                         " NeuronCores (" + expected.instance_type + ")";
  if (auto disagreement = compare_with_neuron_ls(options, expected, evidence)) {
    return *disagreement;
  }
  return {kNeuronDevicesCheckName, CheckStatus::kOk, evidence};
}

}  // namespace trn::health
