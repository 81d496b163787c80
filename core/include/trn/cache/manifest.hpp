#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

// Compile manifests: records in the shared tier that one exact configuration compiled
// successfully, so a later run with the same configuration skips neuron_parallel_compile.
// Stored as <shared_root>/trn-manifests/<key>.json.
namespace trn::cache {

inline constexpr std::string_view manifest_dir_name = "trn-manifests";

// The configuration as one canonical string: compact JSON with object keys sorted at every
// level (nlohmann::json keeps them sorted). Numbers keep their JSON type, so 16 and 16.0
// differ: build the configuration from the same typed values each time.
std::string canonical_json(const nlohmann::json& config);

// The key of a configuration: FNV-1a 64 (trn/common/fnv1a.hpp) of canonical_json(config), 16 hex
// digits. The caller puts in it everything the compiled graphs depend on: trainer command and model
// config, shapes (micro-batch, sequence length, ...), world shape (nodes, workers per node,
// tp, pp), compiler version and compiler flags (NEURON_CC_FLAGS).
std::string manifest_key(const nlohmann::json& config);

std::filesystem::path manifest_path(const std::filesystem::path& shared_root,
                                    const std::string& key);

// True when a manifest for `key` exists and holds a JSON object (a torn or foreign file does
// not count). A missing shared root is simply "no manifest".
bool has_manifest(const std::filesystem::path& shared_root, const std::string& key);

// The stored record, or nullopt (as has_manifest).
std::optional<nlohmann::json> read_manifest(const std::filesystem::path& shared_root,
                                            const std::string& key);

// Writes `record` (a JSON object; include the configuration itself, so a reader can check it)
// atomically: a temporary file in the same folder, renamed over the old record. Creates the
// folders. Errors throw trn::Error naming the file.
void write_manifest(const std::filesystem::path& shared_root, const std::string& key,
                    const nlohmann::json& record);

}  // namespace trn::cache
