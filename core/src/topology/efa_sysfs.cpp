#include "efa_sysfs.hpp"

#include <algorithm>
#include <system_error>

#include "pci_functions.hpp"
#include "sysfs.hpp"
#include "trn/topology/instance_maps.hpp"

namespace trn::topology {

std::vector<EfaDevice> read_efa_devices(const std::filesystem::path& root) {
  constexpr std::string_view fix = "check the RDMA device's PCI function and the filesystem root";
  const auto base = sysfs::under(root, "sys/class/infiniband");
  std::vector<EfaDevice> out;
  for (const auto& name : sysfs::list_directory(base)) {
    const auto link = base / name / "device";
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(link, ec);
    if (ec) continue;  // no PCI function behind it: a software RDMA device
    const auto vendor_file = link / "vendor";
    if (sysfs::parse_hex(sysfs::read(vendor_file, fix), vendor_file) != kAmazonPciVendor) continue;
    const auto device_file = link / "device";
    const unsigned device_id = sysfs::parse_hex(sysfs::read(device_file, fix), device_file);
    if (!is_efa_pci_device(device_id)) continue;
    PciFunction function;
    read_pci_locality(link, function);
    EfaDevice efa;
    efa.name = name;
    efa.pci = PciAddress::parse(target.filename().string(), link.string());
    efa.pci_device_id = device_id;
    efa.numa_node = function.numa_node;
    efa.local_cpus = std::move(function.local_cpus);
    out.push_back(std::move(efa));
  }
  std::sort(out.begin(), out.end(),
            [](const EfaDevice& a, const EfaDevice& b) { return a.pci < b.pci; });
  return out;
}

}  // namespace trn::topology
