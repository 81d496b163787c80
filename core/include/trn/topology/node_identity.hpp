#pragma once

#include <filesystem>
#include <string>

namespace trn::topology {

// The EC2 instance type below a filesystem root (DMI product name, e.g. "trn1.32xlarge"); ""
// on machines without DMI (some VMs), where the type is unknown.
std::string read_instance_type(const std::filesystem::path& root);

// The kernel's boot id below a filesystem root (kBootIdFile); "" when absent.
std::string read_boot_id(const std::filesystem::path& root);

}  // namespace trn::topology
