#include "trn/common/neuron_tool_path.hpp"

#include <unistd.h>

#include <sstream>

namespace trn {

std::optional<std::filesystem::path> find_neuron_tool(const std::string& name,
                                                      const std::string& path) {
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  const auto sdk = std::filesystem::path(kNeuronSdkBin) / name;
  if (::access(sdk.c_str(), X_OK) == 0) return sdk;
  return std::nullopt;
}

}  // namespace trn
