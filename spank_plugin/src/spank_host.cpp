#include "spank_host.hpp"

#include <vector>

#include "trn/common/error.hpp"

namespace trn::spank {
namespace {

[[noreturn]] void fail(const std::string& what, spank_err_t rc) {
  throw Error("Slurm did not provide " + what + " (" + spank_strerror(rc) +
              "): this Slurm may be incompatible with the plugin; check the slurmd log");
}

}  // namespace

std::uint32_t Host::u32(spank_item_t item, const char* name) const {
  std::uint32_t value = 0;
  const spank_err_t rc = spank_get_item(handle_, item, &value);
  if (rc != ESPANK_SUCCESS) fail(name, rc);
  return value;
}

uid_t Host::uid() const {
  uid_t value = 0;
  const spank_err_t rc = spank_get_item(handle_, S_JOB_UID, &value);
  if (rc != ESPANK_SUCCESS) fail("S_JOB_UID", rc);
  return value;
}

gid_t Host::gid() const {
  gid_t value = 0;
  const spank_err_t rc = spank_get_item(handle_, S_JOB_GID, &value);
  if (rc != ESPANK_SUCCESS) fail("S_JOB_GID", rc);
  return value;
}

int Host::task_id() const {
  int value = -1;
  const spank_err_t rc = spank_get_item(handle_, S_TASK_ID, &value);
  if (rc != ESPANK_SUCCESS) fail("S_TASK_ID", rc);
  return value;
}

std::optional<std::string> Host::text(spank_item_t item) const {
  char* value = nullptr;
  if (spank_get_item(handle_, item, &value) != ESPANK_SUCCESS || value == nullptr) {
    return std::nullopt;
  }
  return std::string(value);
}

std::vector<std::string> Host::argv() const {
  int argc = 0;
  char** argv = nullptr;
  if (spank_get_item(handle_, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argv == nullptr) {
    return {};
  }
  std::vector<std::string> out;
  for (int i = 0; i < argc && argv[i] != nullptr; ++i) out.emplace_back(argv[i]);
  return out;
}

std::optional<std::string> Host::getenv(const std::string& name) const {
  std::vector<char> buffer(256);
  for (;;) {
    const spank_err_t rc =
        spank_getenv(handle_, name.c_str(), buffer.data(), static_cast<int>(buffer.size()));
    if (rc == ESPANK_SUCCESS) return std::string(buffer.data());
    if (rc == ESPANK_ENV_NOEXIST) return std::nullopt;
    if (rc != ESPANK_NOSPACE || buffer.size() >= (1u << 20)) fail("the variable " + name, rc);
    buffer.resize(buffer.size() * 4);
  }
}

void Host::setenv(const std::string& name, const std::string& value) const {
  const spank_err_t rc = spank_setenv(handle_, name.c_str(), value.c_str(), 1);
  if (rc != ESPANK_SUCCESS) {
    throw Error("cannot set " + name + "=" + value + " in the task's environment (" +
                spank_strerror(rc) + "): check the slurmd log");
  }
}

void Host::unsetenv(const std::string& name) const {
  const spank_err_t rc = spank_unsetenv(handle_, name.c_str());
  if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_NOEXIST) {
    throw Error("cannot unset " + name + " in the task's environment (" + spank_strerror(rc) +
                "): check the slurmd log");
  }
}

}  // namespace trn::spank
