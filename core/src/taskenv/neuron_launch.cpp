#include "trn/taskenv/neuron_launch.hpp"

#include <algorithm>
#include <filesystem>

#include "trn/common/enum_names.hpp"

namespace trn::taskenv {
namespace {

constexpr EnumNames<NeuronLaunch, 3> neuron_launch_names{{{NeuronLaunch::kAuto, "auto"},
                                                          {NeuronLaunch::kPerCore, "per-core"},
                                                          {NeuronLaunch::kTorchrun, "torchrun"}}};

bool is_python(const std::string& program) {
  return std::filesystem::path(program).filename().string().starts_with("python");
}

}  // namespace

NeuronLaunch parse_neuron_launch(std::string_view text, std::string_view what) {
  return parse_named(neuron_launch_names, text, what, "a launch mode");
}

std::string_view to_string(NeuronLaunch launch) { return name_of(neuron_launch_names, launch); }

NeuronLaunch resolve_neuron_launch(NeuronLaunch requested, const std::vector<std::string>& argv) {
  if (requested != NeuronLaunch::kAuto) return requested;
  if (argv.empty()) return NeuronLaunch::kPerCore;
  const auto program = std::filesystem::path(argv[0]).filename();
  if (program == "torchrun") return NeuronLaunch::kTorchrun;
  // trn-run's compile step: `trn-launcher compile-agent -- COMMAND` runs COMMAND under
  // neuron_parallel_compile, so COMMAND decides.
  if (program == "trn-launcher" && argv.size() > 2 && argv[1] == "compile-agent" &&
      argv[2] == "--") {
    return resolve_neuron_launch(requested, {argv.begin() + 3, argv.end()});
  }
  if (is_python(argv[0])) {
    // python [options] -m torch.distributed.run ...
    const auto module = std::find(argv.begin() + 1, argv.end(), "-m");
    if (module != argv.end() && module + 1 != argv.end() &&
        *(module + 1) == "torch.distributed.run")
      return NeuronLaunch::kTorchrun;
  }
  return NeuronLaunch::kPerCore;
}

}  // namespace trn::taskenv
