#include "trn/plan/tensor_parallel_groups.hpp"

#include <algorithm>

namespace trn::plan {

std::string unsupported_tensor_parallel(const std::string& instance_type,
                                        std::int64_t cores_per_node, std::int64_t tensor_parallel) {
  if (!instance_type.starts_with("trn2")) return "";
  struct Unsupported {
    std::int64_t cores_per_node;
    int logical_nc_config;
    std::int64_t tensor_parallel;
    const char* supported;
  };
  static constexpr Unsupported kUnsupported[] = {{128, 1, 16, "8, 32, 64 or 128"},
                                                 {64, 2, 8, "4, 16, 32 or 64"}};
  for (const auto& shape : kUnsupported) {
    if (cores_per_node != shape.cores_per_node || tensor_parallel != shape.tensor_parallel)
      continue;
    return "tensor_parallel " + std::to_string(tensor_parallel) + " on " + instance_type +
           " at logical NeuronCore config " + std::to_string(shape.logical_nc_config) + " (" +
           std::to_string(cores_per_node) +
           " cores a node): neuronx-distributed has no replica-group order for it (a node's "
           "cores form a ring laid out in rows, and groups of " +
           std::to_string(tensor_parallel) +
           " consecutive cores are not rings on it); fix: choose tensor_parallel " +
           shape.supported;
  }
  return "";
}

bool trains_natively(const std::vector<std::string>& command) {
  if (std::ranges::find(command, "--native") != command.end() ||
      std::ranges::find(command, "--device=neuron") != command.end())
    return true;
  const auto device = std::ranges::find(command, "--device");
  return device != command.end() && device + 1 != command.end() && *(device + 1) == "neuron";
}

}  // namespace trn::plan
