#include "trn/run/worker_core.hpp"

#include <cstdint>

#include "trn/common/env_names.hpp"
#include "trn/common/error.hpp"
#include "trn/common/id_list.hpp"
#include "trn/common/whole_number.hpp"

namespace trn::run {
namespace {

constexpr const char* kUnderTorchrun =
    "run trn-launcher neuron-worker as a torchrun worker (torchrun --no_python trn-launcher "
    "neuron-worker -- COMMAND)";

std::int64_t torchrun_number(const std::optional<std::string>& text, std::string_view name) {
  if (!text) throw Error("neuron-worker: " + std::string(name) + " is not set: " + kUnderTorchrun);
  const auto value = parse_whole_number(*text);
  if (!value || *value < 0) {
    throw Error("neuron-worker: " + std::string(name) + " '" + *text +
                "' is not a whole number >= 0: " + kUnderTorchrun);
  }
  return *value;
}

}  // namespace

std::string worker_visible_core(const std::optional<std::string>& task_cores,
                                const std::optional<std::string>& local_rank,
                                const std::optional<std::string>& local_world_size) {
  const std::string cores_name(env::kNeuronRtVisibleCores);
  if (!task_cores || task_cores->empty()) {
    throw Error("neuron-worker: " + cores_name +
                " is not set: the task must be given its node's NeuronCores (spank_trn, or "
                "trn-launcher slurm-task) before torchrun starts the workers");
  }
  const auto cores = IdList::parse(*task_cores, cores_name);
  const auto rank = torchrun_number(local_rank, env::kLocalRank);
  const auto count = torchrun_number(local_world_size, env::kLocalWorldSize);
  if (static_cast<std::int64_t>(cores.size()) != count) {
    throw Error("neuron-worker: " + cores_name + " " + *task_cores + " names " +
                std::to_string(cores.size()) + " NeuronCores but " +
                std::string(env::kLocalWorldSize) + " is " + std::to_string(count) +
                ": TorchNeuron takes one core per worker, so start as many workers as the "
                "task has cores (torchrun --nproc_per_node=" +
                std::to_string(cores.size()) + ")");
  }
  if (rank >= count) {
    throw Error("neuron-worker: " + std::string(env::kLocalRank) + " " + std::to_string(rank) +
                " is not below " + std::string(env::kLocalWorldSize) + " " + std::to_string(count) +
                ": " + kUnderTorchrun);
  }
  return std::to_string(cores.ids()[static_cast<std::size_t>(rank)]);
}

}  // namespace trn::run
