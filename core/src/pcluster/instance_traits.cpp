#include "trn/pcluster/instance_traits.hpp"

#include <array>

namespace trn::pcluster {
namespace {

// EFA devices per instance (docs/hardware.md#instances).
constexpr std::array<InstanceTraits, 4> known{{
    {"trn1.2xlarge", 0},
    {"trn1.32xlarge", 8},
    {"trn1n.32xlarge", 16},
    {"trn2.48xlarge", 16},
}};

}  // namespace

const InstanceTraits* find_instance_traits(std::string_view instance_type) {
  for (const auto& traits : known) {
    if (traits.type == instance_type) return &traits;
  }
  return nullptr;
}

}  // namespace trn::pcluster
