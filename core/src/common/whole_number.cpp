#include "trn/common/whole_number.hpp"

#include <charconv>
#include <string>

#include "trn/common/error.hpp"

namespace trn {

std::int64_t parse_whole_number_in(std::string_view text, std::string_view what,
                                   std::int64_t minimum, std::int64_t maximum) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t value = 0;
  const auto* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  const bool whole = !digits.empty() && ec == std::errc() && ptr == end;
  if (!whole || value < minimum || value > maximum) {
    throw Error(std::string(what) + " '" + std::string(text) + "' is " +
                (whole || ec == std::errc::result_out_of_range ? "out of range" : "not a number") +
                ": give a whole number from " + std::to_string(minimum) + " to " +
                std::to_string(maximum));
  }
  return value;
}

}  // namespace trn
