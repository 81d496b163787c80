#pragma once

#include <cstdint>
#include <string_view>

namespace trn {

// A count or id given on a command line: a whole decimal number (an optional '+', no sign,
// fraction or exponent otherwise) within [minimum, maximum]. Anything else throws trn::Error
// naming `what` (e.g. "--nodes") and the range, so that "-16" never wraps to 2^32 - 16 and a
// huge count never reaches an allocation.
std::int64_t parse_whole_number_in(std::string_view text, std::string_view what,
                                   std::int64_t minimum, std::int64_t maximum);

}  // namespace trn
