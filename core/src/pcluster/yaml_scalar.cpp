#include "yaml_scalar.hpp"

#include <regex>

namespace trn::pcluster {
namespace {

// YAML 1.1 resolution as PyYAML implements it (yaml/resolver.py).
const std::regex& bool_pattern() {
  static const std::regex re(
      "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF");
  return re;
}
const std::regex& int_pattern() {
  static const std::regex re(
      "[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+");
  return re;
}
const std::regex& float_pattern() {
  static const std::regex re(
      "[-+]?([0-9][0-9_]*)?\\.[0-9.]*([eE][-+][0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
  return re;
}
const std::regex& null_pattern() {
  static const std::regex re("~|null|Null|NULL|");
  return re;
}

bool is_plain(const YAML::Node& scalar) { return scalar.Tag() == "?"; }

}  // namespace

ScalarType resolve_scalar(const YAML::Node& scalar) {
  if (scalar.IsNull()) return ScalarType::kNull;
  if (!is_plain(scalar)) return ScalarType::kString;
  const std::string& text = scalar.Scalar();
  if (std::regex_match(text, null_pattern())) return ScalarType::kNull;
  if (std::regex_match(text, bool_pattern())) return ScalarType::kBoolean;
  if (std::regex_match(text, int_pattern())) return ScalarType::kInteger;
  if (std::regex_match(text, float_pattern())) return ScalarType::kNumber;
  return ScalarType::kString;
}

std::optional<long long> integer_of(const YAML::Node& scalar) {
  if (!scalar.IsScalar()) return std::nullopt;
  // marshmallow's Int also takes a quoted "16". pcluster reads YAML 1.1 (PyYAML), whose integers
  // also come as 0x10, 0o20 / 020, 0b10000 and with '_' between digits (1_6): all 16.
  static const std::regex yaml11_integer(
      "([-+]?)(0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*)");
  const std::string& text = scalar.Scalar();
  std::smatch parts;
  if (!std::regex_match(text, parts, yaml11_integer)) return std::nullopt;
  std::string digits = parts[2].str();
  std::erase(digits, '_');
  int base = 10;
  std::size_t prefix = 0;
  if (digits.starts_with("0x")) {
    base = 16;
    prefix = 2;
  } else if (digits.starts_with("0o")) {
    base = 8;
    prefix = 2;
  } else if (digits.starts_with("0b")) {
    base = 2;
    prefix = 2;
  } else if (digits.size() > 1 && digits[0] == '0') {
    base = 8;  // YAML 1.1: a leading 0 is octal (an 8 or 9 then fails below)
  }
  digits.erase(0, prefix);
  if (digits.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long value = std::stoll(digits, &used, base);
    if (used != digits.size()) return std::nullopt;
    return parts[1].str() == "-" ? -value : value;
  } catch (const std::logic_error&) {  // out of range
    return std::nullopt;
  }
}

std::optional<bool> boolean_of(const YAML::Node& scalar) {
  if (!scalar.IsScalar()) return std::nullopt;
  static const std::regex truthy("true|True|TRUE|yes|Yes|YES|on|On|ON|1");
  static const std::regex falsy("false|False|FALSE|no|No|NO|off|Off|OFF|0");
  const std::string& text = scalar.Scalar();
  if (std::regex_match(text, truthy)) return true;
  if (std::regex_match(text, falsy)) return false;
  return std::nullopt;
}

bool is_number(const YAML::Node& scalar) {
  if (!scalar.IsScalar()) return false;
  static const std::regex number("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  return std::regex_match(scalar.Scalar(), number);
}

std::string describe_node(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "no value";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  const std::string quoted = "'" + node.Scalar() + "'";
  switch (resolve_scalar(node)) {
    case ScalarType::kNull:
      return "no value";
    case ScalarType::kBoolean:
      return "the boolean " + quoted;
    case ScalarType::kInteger:
      return "the integer " + quoted;
    case ScalarType::kNumber:
      return "the number " + quoted;
    case ScalarType::kString:
      break;
  }
  return "the string " + quoted;
}

}  // namespace trn::pcluster
