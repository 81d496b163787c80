#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace trn {

// Where the Neuron SDK's packages (aws-neuronx-tools, -collectives) install their programs.
inline constexpr const char* kNeuronSdkBin = "/opt/aws/neuron/bin";

// The executable `name` in a directory of `path` (a PATH value: a user's or a training
// environment's copy comes first), else in kNeuronSdkBin; nullopt when neither has it.
std::optional<std::filesystem::path> find_neuron_tool(const std::string& name,
                                                      const std::string& path);

}  // namespace trn
