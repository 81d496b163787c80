#include "neuron_sysfs.hpp"

#include <algorithm>
#include <charconv>

#include "sysfs.hpp"
#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "trn/topology/instance_maps.hpp"

namespace trn::topology {
namespace {

constexpr std::string_view kDriverFix =
    "is the Neuron driver (aws-neuronx-dkms) loaded and recent enough? check the filesystem root";

void read_core_count(const std::filesystem::path& dir, NeuronDevice& device) {
  const auto file = dir / "core_count";
  FileRead read = try_read_text(file);
  if (read.status == FileRead::Status::kPermissionDenied) {
    device.physical_cores = documented_cores_per_device(device.device_name);
    if (device.physical_cores == 0) {
      throw Error("cannot read " + file.string() +
                  " (readable by root only) and the device name '" + device.device_name +
                  "' has no documented core count: discover the topology as root");
    }
    device.core_count_source =
        "documented for " + device.device_name + " (core_count is readable by root only)";
    return;
  }
  const std::string text = sysfs::read(file, kDriverFix);
  device.physical_cores = sysfs::parse_unsigned(text, file);
  if (device.physical_cores == 0 || device.physical_cores > 64) {
    throw Error(file.string() + ": " + text +
                " NeuronCores is not a plausible core count: check the filesystem root");
  }
  device.core_count_source = "sysfs";
}

void read_connected_devices(const std::filesystem::path& dir, NeuronDevice& device) {
  const auto file = dir / "connected_devices";
  FileRead read = try_read_text(file);
  if (read.status == FileRead::Status::kPermissionDenied) return;  // informational only
  device.connected_devices = sysfs::parse_number_list(sysfs::read(file, kDriverFix), file);
}

}  // namespace

std::optional<unsigned> neuron_device_index(std::string_view name) {
  constexpr std::string_view prefix = "neuron";
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return std::nullopt;
  unsigned index = 0;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(first, last, index);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return index;
}

std::vector<NeuronDevice> read_neuron_devices(const std::filesystem::path& root) {
  const auto base = sysfs::under(root, "sys/devices/virtual/neuron_device");
  std::vector<NeuronDevice> devices;
  for (const auto& name : sysfs::list_directory(base)) {
    NeuronDevice device;
    const auto index = neuron_device_index(name);
    if (!index) continue;
    device.index = *index;
    const auto dir = base / name;
    const auto arch = dir / "info" / "architecture";
    device.arch_type = sysfs::read(arch / "arch_type", kDriverFix);
    device.family = sysfs::read(arch / "instance_type", kDriverFix);
    device.device_name = sysfs::read(arch / "device_name", kDriverFix);
    read_core_count(dir, device);
    read_connected_devices(dir, device);
    devices.push_back(std::move(device));
  }
  std::sort(devices.begin(), devices.end(),
            [](const NeuronDevice& a, const NeuronDevice& b) { return a.index < b.index; });
  return devices;
}

}  // namespace trn::topology
