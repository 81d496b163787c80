#include "trn/common/env_value.hpp"

#include <cstdlib>

namespace trn {

std::optional<std::string> env_value(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace trn
