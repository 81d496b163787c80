#pragma once

// Access to the recorded node trees under tests/fixtures (see tests/fixtures/generate.py).

#include <filesystem>
#include <map>
#include <string>

#include "trn/topology/discover.hpp"

namespace trn::test {

inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(TRN_FIXTURES_DIR) / name;
}

// Discovered once per test binary: every test that only reads a fixture shares the result.
inline const topology::NodeTopology& discovered(const std::string& name) {
  static std::map<std::string, topology::NodeTopology> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    topology::DiscoveryOptions options;
    options.fsroot = fixture(name);
    it = cache.emplace(name, topology::discover(options)).first;
  }
  return it->second;
}

}  // namespace trn::test
