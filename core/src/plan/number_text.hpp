#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "trn/common/whole_number.hpp"  // parse_whole_number, for the profile fields

namespace trn::plan {

// A finite real number in C notation ("4e-4", "0.0004", "6E-3").
std::optional<double> parse_real(std::string_view text);

// The shortest text that reads back as the same double, without exponent where that is as
// short: 0.0004 -> "0.0004", 6e-3 -> "0.006", 1e-5 -> "1e-05".
std::string format_real(double value);

}  // namespace trn::plan
