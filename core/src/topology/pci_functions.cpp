#include "pci_functions.hpp"

#include "sysfs.hpp"
#include "trn/topology/instance_maps.hpp"

namespace trn::topology {

void read_pci_locality(const std::filesystem::path& dir, PciFunction& function) {
  constexpr std::string_view fix = "check the filesystem root";
  const auto numa_file = dir / "numa_node";
  function.numa_node = sysfs::parse_int(sysfs::read(numa_file, fix), numa_file);
  const auto cpus_file = dir / "local_cpulist";
  function.local_cpus = IdList::parse(sysfs::read(cpus_file, fix), cpus_file.string());
}

std::vector<PciFunction> find_neuron_pci_functions(const std::filesystem::path& root) {
  constexpr std::string_view fix = "check the filesystem root";
  const auto devices = sysfs::under(root, "sys/bus/pci/devices");
  std::vector<PciFunction> out;
  for (const auto& name : sysfs::list_directory(devices)) {
    const auto dir = devices / name;
    const auto vendor_file = dir / "vendor";
    if (sysfs::parse_hex(sysfs::read(vendor_file, fix), vendor_file) != kAmazonPciVendor) continue;
    const auto device_file = dir / "device";
    const unsigned device_id = sysfs::parse_hex(sysfs::read(device_file, fix), device_file);
    if (!is_neuron_pci_device(device_id)) continue;
    PciFunction function;
    function.address = PciAddress::parse(name, devices.string());
    function.device_id = device_id;
    read_pci_locality(dir, function);
    out.push_back(std::move(function));
  }
  return out;
}

}  // namespace trn::topology
