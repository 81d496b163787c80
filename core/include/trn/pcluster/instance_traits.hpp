#pragma once

#include <string>
#include <string_view>

namespace trn::pcluster {

// What the linter needs to know about an EC2 instance type (docs/hardware.md#instances).
struct InstanceTraits {
  std::string_view type;
  int efa_devices = 0;  // 0: the instance has no EFA and EFA must stay off
};

// The Trainium instance types this project targets; nullptr for any other type, about which
// the linter makes no EFA claim.
const InstanceTraits* find_instance_traits(std::string_view instance_type);

}  // namespace trn::pcluster
