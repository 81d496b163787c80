#include "trn/cache/manifest.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>

#include "directory.hpp"
#include "trn/cache/fnv1a.hpp"
#include "trn/common/error.hpp"

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
  std::ifstream in(manifest_path(shared_root, key));
  if (!in) return std::nullopt;
  auto record = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
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
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) {
    detail::throw_errno("cannot create", path.parent_path(), error.value(),
                        "check that the shared cache is writable");
  }
  const auto text = record.dump(2) + "\n";
  auto temp = path;
  std::array<char, 256> host{};
  ::gethostname(host.data(), host.size() - 1);
  temp += ".tmp." + std::to_string(::getpid()) + "." + host.data();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) detail::throw_errno("cannot create", temp, errno, "check the shared cache");
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t put = ::write(fd, text.data() + written, text.size() - written);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) {
      const int write_error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      detail::throw_errno("cannot write", temp, write_error, "check free space");
    }
    written += static_cast<std::size_t>(put);
  }
  // The record claims a compile is done: make it durable before it becomes visible.
  int error_number = 0;
  if (::fsync(fd) != 0) error_number = errno;
  if (::close(fd) != 0 && error_number == 0) error_number = errno;
  if (error_number != 0) {
    ::unlink(temp.c_str());
    detail::throw_errno("cannot write", temp, error_number, "check free space");
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    error_number = errno;
    ::unlink(temp.c_str());
    detail::throw_errno("cannot move the record to", path, error_number, "check the shared cache");
  }
}

}  // namespace trn::cache
