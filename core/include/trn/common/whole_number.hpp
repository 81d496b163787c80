#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trn {

// A whole decimal number, optionally signed, nothing else ("16", "-1"; not "16.0", "1e3");
// nullopt also when it does not fit in 64 bits.
std::optional<std::int64_t> parse_whole_number(std::string_view text);

// A count or id given on a command line: a whole decimal number (an optional '+', no sign,
// fraction or exponent otherwise) within [minimum, maximum]. Anything else throws trn::Error
// naming `what` (e.g. "--nodes") and the range, so that "-16" never wraps to 2^32 - 16 and a
// huge count never reaches an allocation.
std::int64_t parse_whole_number_in(std::string_view text, std::string_view what,
                                   std::int64_t minimum, std::int64_t maximum);

}  // namespace trn
