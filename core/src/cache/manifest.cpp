#include "trn/cache/manifest.hpp"

#include <fstream>

#include "trn/common/error.hpp"
#include "trn/common/fnv1a.hpp"
#include "trn/common/text_file.hpp"

namespace trn::cache {

namespace {

void check_key(const std::string& key) {
  const bool hex = !key.empty() && key.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!hex) {
    throw Error("compile manifest key '" + key +
                "': not a key made by manifest_key (lowercase hexadecimal digits); pass the "
                "value manifest_key returned");
  }
}

}  // namespace

std::string canonical_json(const nlohmann::json& config) {
  try {
    return config.dump();
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("compile configuration: cannot be written as JSON (") + e.what() +
                "); use UTF-8 text in its strings");
  }
}

std::string manifest_key(const nlohmann::json& config) {
  return fnv1a_64_hex(canonical_json(config));
}

std::filesystem::path manifest_path(const std::filesystem::path& shared_root,
                                    const std::string& key) {
  check_key(key);
  return shared_root / std::string(manifest_dir_name) / (key + ".json");
}

std::optional<nlohmann::json> read_manifest(const std::filesystem::path& shared_root,
                                            const std::string& key) {
  // A manifest that is not a regular file (a FIFO in the shared tier) records nothing.
  const auto read = try_read_regular_file(manifest_path(shared_root, key), kMaxTextFileBytes);
  if (!read.ok()) return std::nullopt;
  auto record = nlohmann::json::parse(read.text, nullptr, /*allow_exceptions=*/false);
  if (record.is_discarded() || !record.is_object()) return std::nullopt;
  return record;
}

bool has_manifest(const std::filesystem::path& shared_root, const std::string& key) {
  return read_manifest(shared_root, key).has_value();
}

void write_manifest(const std::filesystem::path& shared_root, const std::string& key,
                    const nlohmann::json& record) {
  const auto path = manifest_path(shared_root, key);
  if (!record.is_object()) {
    throw Error("compile manifest " + path.string() +
                ": the record must be a JSON object; wrap the values in one");
  }
  // The record claims a compile is done: it must be durable before it becomes visible. The
  // umask decides its mode, so a group sharing the cache can read it.
  write_file_atomically(path, record.dump(2) + "\n", std::nullopt,
                        "check that the shared cache is writable and has free space");
}

}  // namespace trn::cache
