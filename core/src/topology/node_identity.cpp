#include "trn/topology/node_identity.hpp"

#include "sysfs.hpp"
#include "trn/common/text_file.hpp"
#include "trn/topology/node_topology.hpp"

namespace trn::topology {

std::string read_instance_type(const std::filesystem::path& root) {
  const FileRead read = try_read_text(sysfs::under(root, "sys/class/dmi/id/product_name"));
  return read.ok() ? std::string(trim(read.text)) : std::string();
}

std::string read_boot_id(const std::filesystem::path& root) {
  const FileRead read = try_read_text(sysfs::under(root, kBootIdFile));
  return read.ok() ? std::string(trim(read.text)) : std::string();
}

}  // namespace trn::topology
