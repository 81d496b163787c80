#include "trn/plan/tensor_parallel_groups.hpp"

#include <algorithm>

#include "trn/cache/compile_mode.hpp"

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

bool trains_natively(const std::vector<std::string>& command, WorkerCores worker_cores) {
  if (worker_cores == WorkerCores::kPerWorker) return true;
  const auto choice = cache::worker_device_choice(command);
  return choice.native || choice.device == "neuron";
}

}  // namespace trn::plan
