#pragma once

#include <string_view>

namespace trn::pcluster {

// Bundled configs mark every value the user must supply with REPLACE_ME
// (subnet-REPLACE_ME_PUBLIC, REPLACE_ME_KEY, ...): format checks skip such values, and the
// placeholder rule reports them instead.
inline constexpr std::string_view placeholder_marker = "REPLACE_ME";

inline bool is_placeholder(std::string_view value) {
  return value.find(placeholder_marker) != std::string_view::npos;
}

}  // namespace trn::pcluster
