// The training stack a queue's install action puts on its nodes (pcluster-configs/install,
// --stack xla|torchneuron|auto) must fit its instance types and the cluster's OS
// (docs/hardware.md#torchneuron-stack): Neuron 2.33's TorchNeuron supports trn2 and trn3 only,
// on Ubuntu 24.04 and 26.04.
#include <string_view>

#include "node_access.hpp"
#include "rules.hpp"

namespace trn::pcluster {
namespace {

bool takes_torchneuron(std::string_view instance_type) {
  return instance_type.starts_with("trn2") || instance_type.starts_with("trn3");
}

// The value after `--stack` in an action's Args, and where it is.
std::optional<std::pair<std::string, YAML::Mark>> stack_in(const YAML::Node& action) {
  const auto args = child(action, "Args");
  if (!args || !args->IsSequence()) return std::nullopt;
  for (std::size_t i = 0; i + 1 < args->size(); ++i) {
    const YAML::Node arg = (*args)[i];
    const YAML::Node value = (*args)[i + 1];
    if (arg.IsScalar() && arg.Scalar() == "--stack" && value.IsScalar())
      return std::pair{value.Scalar(), value.Mark()};
  }
  return std::nullopt;
}

// The --stack a queue's OnNodeConfigured action passes (Script with Args, or a Sequence).
std::optional<std::pair<std::string, YAML::Mark>> queue_stack(const Item& queue) {
  const auto action = descend(queue.node, {"CustomActions", "OnNodeConfigured"});
  if (!action || !action->IsMap()) return std::nullopt;
  if (auto stack = stack_in(*action)) return stack;
  const auto sequence = child(*action, "Sequence");
  if (!sequence || !sequence->IsSequence()) return std::nullopt;
  for (const auto& entry : *sequence) {
    if (auto stack = stack_in(entry)) return stack;
  }
  return std::nullopt;
}

}  // namespace

void check_training_stack(const YAML::Node& root, Report& report) {
  const auto os_node = descend(root, {"Image", "Os"});
  const std::string os = os_node && os_node->IsScalar() ? os_node->Scalar() : "";
  for (const auto& queue : slurm_queues(root)) {
    const auto stack = queue_stack(queue);
    const std::string chosen = stack ? stack->first : "auto";
    for (const auto& resource : compute_resources(queue)) {
      for (const auto& [type, mark] : instance_types(resource)) {
        const bool torchneuron =
            chosen == "torchneuron" || (chosen == "auto" && takes_torchneuron(type));
        if (chosen == "torchneuron" && !takes_torchneuron(type)) {
          std::string message = queue.label("queue");
          message.append(" installs the TorchNeuron stack (--stack torchneuron) on ")
              .append(type)
              .append(", but TorchNeuron supports trn2 and trn3 only: use --stack xla (or auto)");
          report.error(stack->second, message);
        } else if (torchneuron && !os.empty() && os != "ubuntu2404") {
          std::string message = "Image.Os is " + os;
          message.append(", but ")
              .append(queue.label("queue"))
              .append(" (")
              .append(type)
              .append(
                  ") gets Neuron 2.33's TorchNeuron stack, which supports Ubuntu 24.04 and "
                  "26.04 only: set Image: Os: ubuntu2404");
          report.error(os_node->Mark(), message);
        }
      }
    }
  }
}

}  // namespace trn::pcluster
