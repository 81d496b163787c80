#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trn/common/process.hpp"
#include "trn/topology/pci_address.hpp"

namespace trn::topology {

// Output of `neuron-ls -j` (recorded or captured), with where it came from for messages.
struct NeuronLsOutput {
  std::string json;
  std::string origin;  // e.g. the file it was read from, or "neuron-ls -j"
};

// The part trn-slurm uses: neuron-ls fills `bdf` from the driver's BDF ioctl, so it is the
// authoritative Neuron index -> PCI map.
struct NeuronLsDevice {
  unsigned index = 0;
  PciAddress pci;
  std::optional<unsigned> logical_core_config;  // logical_neuroncore_config (trn2: 1 or 2)
  std::optional<unsigned> core_count;  // nc_count: logical NeuronCores (physical / the config)
};

// Throws trn::Error naming `output.origin` when the text is not a neuron-ls JSON device array.
std::vector<NeuronLsDevice> parse_neuron_ls(const NeuronLsOutput& output);

// Reads a recorded output file.
NeuronLsOutput read_neuron_ls_file(const std::filesystem::path& file);

// Runs `<executable> -j` through `run` and returns its output; std::nullopt when the executable
// does not exist. Throws trn::Error when it fails or runs longer than `timeout` (it is then
// killed).
std::optional<NeuronLsOutput> run_neuron_ls(
    const std::filesystem::path& executable = "/opt/aws/neuron/bin/neuron-ls",
    std::chrono::milliseconds timeout = std::chrono::seconds(10),
    const ProcessRunner& run = capture_process);

}  // namespace trn::topology
