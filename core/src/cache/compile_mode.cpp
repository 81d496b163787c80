#include "trn/cache/compile_mode.hpp"

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

WorkerDeviceChoice worker_device_choice(const std::vector<std::string>& worker_command) {
  WorkerDeviceChoice choice;
  for (std::size_t i = 0; i < worker_command.size(); ++i) {
    const std::string_view word = worker_command[i];
    if (word == "--native") choice.native = true;
    if (word == "--device" && i + 1 < worker_command.size()) choice.device = worker_command[i + 1];
    if (word.starts_with("--device=")) choice.device = std::string(word.substr(9));
  }
  return choice;
}

CompileMode compile_mode_of(const std::vector<std::string>& worker_command, bool neuron_nodes,
                            bool torchneuron_workers) {
  if (neuron_nodes && torchneuron_workers) return CompileMode::kWarmUp;
  const auto choice = worker_device_choice(worker_command);
  if (choice.device == "neuron") return CompileMode::kWarmUp;
  if (!choice.native) return CompileMode::kNeuronParallelCompile;
  if (choice.device == "cpu" || choice.device == "cuda") return CompileMode::kNone;
  return neuron_nodes ? CompileMode::kWarmUp : CompileMode::kNone;
}

}  // namespace trn::cache
