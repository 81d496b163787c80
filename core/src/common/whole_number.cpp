#include "trn/common/whole_number.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "trn/common/error.hpp"

namespace trn {
namespace {

// Digits with an optional sign: what a number too large for 64 bits looks like.
bool is_signed_digits(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

std::optional<std::int64_t> parse_whole_number(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::int64_t parse_whole_number_in(std::string_view text, std::string_view what,
                                   std::int64_t minimum, std::int64_t maximum) {
  const auto value = parse_whole_number(text);
  if (!value || *value < minimum || *value > maximum) {
    throw Error(std::string(what) + " '" + std::string(text) + "' is " +
                (value || is_signed_digits(text) ? "out of range" : "not a number") +
                ": give a whole number from " + std::to_string(minimum) + " to " +
                std::to_string(maximum));
  }
  return *value;
}

}  // namespace trn
