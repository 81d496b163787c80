#include "trn/cache/compile_mode.hpp"

#include <algorithm>
#include <optional>

namespace trn::cache {

std::string_view to_string(CompileMode mode) {
  switch (mode) {
    case CompileMode::kNeuronParallelCompile:
      return "neuron_parallel_compile";
    case CompileMode::kWarmUp:
      return "warm-up";
    case CompileMode::kNone:
      return "none";
  }
  return "none";
}

CompileMode compile_mode_of(const std::vector<std::string>& worker_command, bool neuron_nodes,
                            bool torchneuron_workers) {
  if (neuron_nodes && torchneuron_workers) return CompileMode::kWarmUp;
  bool native = false;
  std::optional<std::string> device;
  for (std::size_t i = 0; i < worker_command.size(); ++i) {
    const std::string_view word = worker_command[i];
    if (word == "--native") native = true;
    if (word == "--device" && i + 1 < worker_command.size()) device = worker_command[i + 1];
    if (word.starts_with("--device=")) device = std::string(word.substr(9));
  }
  if (device == "neuron") return CompileMode::kWarmUp;
  if (!native) return CompileMode::kNeuronParallelCompile;
  if (device == "cpu" || device == "cuda") return CompileMode::kNone;
  return neuron_nodes ? CompileMode::kWarmUp : CompileMode::kNone;
}

}  // namespace trn::cache
