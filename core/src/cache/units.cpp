#include "trn/cache/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "trn/common/error.hpp"

namespace trn::cache {

namespace {

// Bounds that keep `now - age` inside system_clock's range (about 292 years either side of
// 1970) and sizes inside 64 bits; an overflow would select every entry instead of none.
constexpr double kMaxAgeSeconds = 36500.0 * 86400;       // "36500d", about 100 years
constexpr double kMaxSizeBytes = 1024.0 * (1ULL << 40);  // "1024T", 1 PiB

struct NumberAndUnit {
  double number = 0;
  std::string unit;  // lowercase
};

std::optional<NumberAndUnit> split(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) != 0 || text[digits] == '.')) {
    digits++;
  }
  if (digits == 0) return std::nullopt;
  NumberAndUnit result;
  const auto [end, error] = std::from_chars(text.data(), text.data() + digits, result.number);
  if (end != text.data() + digits) return std::nullopt;
  // Digits beyond a double's range are still a number: strtod gives HUGE_VAL (too large, as
  // the callers then say) or, for tiny fractions, a value near zero.
  if (error == std::errc::result_out_of_range) {
    result.number = std::strtod(std::string(text.substr(0, digits)).c_str(), nullptr);
  }
  if (error != std::errc() && error != std::errc::result_out_of_range) return std::nullopt;
  for (const char c : text.substr(digits)) {
    result.unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return result;
}

}  // namespace

std::uintmax_t parse_size(std::string_view text, std::string_view what) {
  const auto parts = split(text);
  double scale = -1;
  if (parts) {
    constexpr std::array<std::string_view, 5> prefixes = {"", "k", "m", "g", "t"};
    for (std::size_t i = 0; i < prefixes.size(); ++i) {
      const std::string p(prefixes[i]);
      if (parts->unit == p || parts->unit == p + "b" || (!p.empty() && parts->unit == p + "ib")) {
        scale = std::ldexp(1.0, static_cast<int>(10 * i));
      }
    }
  }
  if (scale < 0) {
    throw Error(std::string(what) + " '" + std::string(text) +
                "': not a size; write a number with an optional unit K, M, G or T (binary), "
                "e.g. 500M or 20G");
  }
  const double bytes = parts->number * scale;
  if (bytes > kMaxSizeBytes) {
    throw Error(std::string(what) + " '" + std::string(text) +
                "': too large; give a size of at most 1024T");
  }
  return static_cast<std::uintmax_t>(std::llround(bytes));
}

std::chrono::seconds parse_age(std::string_view text, std::string_view what) {
  const auto parts = split(text);
  double scale = -1;
  if (parts) {
    if (parts->unit.empty() || parts->unit == "s") scale = 1;
    if (parts->unit == "m") scale = 60;
    if (parts->unit == "h") scale = 3600;
    if (parts->unit == "d") scale = 86400;
    if (parts->unit == "w") scale = 7 * 86400;
  }
  if (scale < 0) {
    throw Error(std::string(what) + " '" + std::string(text) +
                "': not an age; write a number with a unit s, m, h, d or w, e.g. 1h or 7d");
  }
  const double seconds = parts->number * scale;
  if (seconds > kMaxAgeSeconds) {
    throw Error(std::string(what) + " '" + std::string(text) +
                "': too large; give an age of at most 36500d (100 years)");
  }
  return std::chrono::seconds(std::llround(seconds));
}

std::string format_bytes(std::uintmax_t bytes) {
  constexpr std::array<const char*, 5> units = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < units.size()) {
    value /= 1024;
    unit++;
  }
  std::array<char, 32> text{};
  if (unit == 0) {
    std::snprintf(text.data(), text.size(), "%ju B", bytes);
  } else {
    std::snprintf(text.data(), text.size(), value < 10 ? "%.1f %s" : "%.0f %s", value, units[unit]);
  }
  return text.data();
}

}  // namespace trn::cache
