#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trn/cache/entry.hpp"

namespace trn::cache {

// Every entry under a cache root (all neuronxcc-* folders, or only `compiler_version`),
// ordered by version and module. Folders that are not part of the layout (the manifests,
// trn-cache's own temporary folders) are not entries. A missing root is an error.
std::vector<Entry> scan(const std::filesystem::path& root,
                        const std::optional<std::string>& compiler_version = std::nullopt);

}  // namespace trn::cache
