#include "trn/common/env_value.hpp"

#include <cstdlib>

namespace trn {

std::optional<std::string> env_value(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace trn
