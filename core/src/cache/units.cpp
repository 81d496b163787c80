#include "trn/cache/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "trn/common/error.hpp"

namespace trn::cache {

namespace {

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
  if (error != std::errc() || end != text.data() + digits || !std::isfinite(result.number)) {
    return std::nullopt;
  }
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
  return static_cast<std::uintmax_t>(std::llround(parts->number * scale));
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
  return std::chrono::seconds(std::llround(parts->number * scale));
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
