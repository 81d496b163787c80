#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include "trn/common/error.hpp"

// What the transfers of both cache layouts (transfer.cpp: neuronx-cc's, neff_transfer.cpp:
// TorchNeuron's NEFFs) require of their two roots and say when writing to the destination fails.
namespace trn::cache::detail {

inline const char* const destination_fix =
    "check free space and permissions of the destination cache";

// Throws when `from` and `to` are one folder: a copy onto itself would stage and rename every
// entry over itself. `what`: "compile cache", "NEFF cache".
inline void check_distinct_roots(const std::filesystem::path& from, const std::filesystem::path& to,
                                 const std::string& what) {
  std::error_code error;
  if (std::filesystem::exists(to, error) && std::filesystem::equivalent(from, to, error)) {
    throw Error(what + " " + from.string() +
                ": source and destination are the same folder; name two different cache roots");
  }
}

}  // namespace trn::cache::detail
