#pragma once

#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

// --version for every tool: one line, the same release for all of them (CMake's project
// version, passed as TRN_VERSION by launcher/CMakeLists.txt).
namespace trn::launcher {

inline constexpr std::string_view kVersion = TRN_VERSION;

// Whether the command line asks for the version: --version before any "--" (what follows "--"
// belongs to the trainer).
inline bool asks_for_version(const std::vector<std::string>& args) {
  const auto end = std::find(args.begin(), args.end(), "--");
  return std::find(args.begin(), end, "--version") != end;
}

inline void print_version(std::string_view tool) {
  std::cout << tool << " (trn-slurm) " << kVersion << '\n';
}

}  // namespace trn::launcher
