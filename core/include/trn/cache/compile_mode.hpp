#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// How trn-run fills the compile cache before training, decided from the profile's worker command
// and its worker_cores (launcher/profiles/README.md#compile-phase):
//   - the trn1 path (torch-xla): neuron_parallel_compile around compile_steps steps, which
//     extracts the graphs and compiles them in parallel (docs/hardware.md#neuron-parallel-compile);
//   - the native path (TorchNeuron: `--native` or `--device neuron`, or worker_cores: per-worker,
//     as for TorchTitan's trainer): a warm-up run of
//     compile_steps steps on every node, whose torch.compile(backend="neuron") compiles the graphs
//     into TorchNeuron's NEFF cache (docs/hardware.md#torchneuron-cache); neuron_parallel_compile
//     works on torch-xla's graphs only.
namespace trn::cache {

enum class CompileMode {
  kNeuronParallelCompile,
  kWarmUp,
  // The native path on a device other than Neuron (--device cpu or cuda, or auto on nodes
  // without Neuron devices): nothing is compiled for a NeuronCore, so nothing ahead of training.
  kNone,
};

std::string_view to_string(CompileMode mode);  // "neuron_parallel_compile", "warm-up", "none"

// What a worker command (a profile's words) asks of the bundled trainer: `--native`, and the
// device of its last `--device X` or `--device=X` (argparse's rule: the last one wins).
struct WorkerDeviceChoice {
  bool native = false;
  std::optional<std::string> device;
};
WorkerDeviceChoice worker_device_choice(const std::vector<std::string>& worker_command);

// The mode of a worker command (its words, placeholders rendered or not) on nodes with
// (`neuron_nodes`) or without Neuron devices. Workers the profile declares TorchNeuron's
// (`torchneuron_workers`: worker_cores per-worker, e.g. TorchTitan's trainer, whose command names
// no option of ours) on Neuron nodes: kWarmUp - neuron_parallel_compile is torch-xla's. Else
// `--device neuron`: kWarmUp. Otherwise a command without `--native` is the trn1 path's:
// kNeuronParallelCompile. A native command with `--device cpu` or `cuda`, or with the default
// `auto` on nodes without Neuron devices (where it picks the CPU or a GPU), compiles nothing for a
// NeuronCore: kNone; with `auto` on Neuron nodes: kWarmUp.
CompileMode compile_mode_of(const std::vector<std::string>& worker_command, bool neuron_nodes,
                            bool torchneuron_workers);

// torch-neuronx's optimisation level for neuronx-cc (its default for torch.compile: -O2), part of
// TorchNeuron's NEFF key.
inline constexpr std::string_view compiler_opt_level_variable = "NEURON_COMPILER_OPT_LEVEL";

}  // namespace trn::cache
