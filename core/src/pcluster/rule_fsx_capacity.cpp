#include <set>

#include "node_access.hpp"
#include "rules.hpp"

namespace trn::pcluster {
namespace {

// The SSD deployment types whose capacity steps are 1200 GiB, then multiples of 2400 GiB.
bool has_2400_steps(const std::string& deployment_type) {
  static const std::set<std::string> types{"SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2"};
  return types.count(deployment_type) > 0;
}

}  // namespace

void check_fsx_capacity(const YAML::Node& root, Report& report) {
  for (const auto& storage : items(root, "SharedStorage", "")) {
    if (text_at(storage.node, "StorageType").value_or("") != "FsxLustre") continue;
    const auto settings = child(storage.node, "FsxLustreSettings");
    if (!settings || !settings->IsMap() || child(*settings, "FileSystemId")) continue;
    const auto capacity = integer_at(*settings, "StorageCapacity");
    if (!capacity) continue;
    // ParallelCluster creates SCRATCH_2 on SSD unless told otherwise.
    const std::string deployment = text_at(*settings, "DeploymentType").value_or("SCRATCH_2");
    const std::string medium = text_at(*settings, "StorageType").value_or("SSD");
    if (!has_2400_steps(deployment) || medium != "SSD") continue;
    if (*capacity == 1200 || (*capacity > 0 && *capacity % 2400 == 0)) continue;
    report.error(child(*settings, "StorageCapacity")->Mark(),
                 storage.label("FSx for Lustre storage") + " has StorageCapacity " +
                     std::to_string(*capacity) + " GiB, not valid for " + deployment +
                     ": use 1200 or a multiple of 2400");
  }
}

}  // namespace trn::pcluster
