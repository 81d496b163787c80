#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "trn/common/error.hpp"

namespace trn {

// One enumerator and the name users write for it (options, profiles, JSON, messages).
template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

// An enum's name table: every enumerator once, in the order messages list the choices. Each
// enum that has user-facing names keeps one such table next to its to_string(), so that the
// name, the parser and the "use a, b or c" hint cannot drift apart.
template <typename Enum, std::size_t count>
using EnumNames = std::array<EnumName<Enum>, count>;

// The table's name for `value`; the first name for a value the table lacks (a table is meant
// to be complete, so that only happens for an out-of-range cast).
template <typename Enum, std::size_t count>
constexpr std::string_view name_of(const EnumNames<Enum, count>& names, Enum value) {
  for (const auto& entry : names) {
    if (entry.value == value) return entry.name;
  }
  return names.front().name;
}

// The value named `name` exactly, or nullopt.
template <typename Enum, std::size_t count>
constexpr std::optional<Enum> value_named(const EnumNames<Enum, count>& names,
                                          std::string_view name) {
  for (const auto& entry : names) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// "numa, cores or none": the choices for a message.
template <typename Enum, std::size_t count>
std::string list_names(const EnumNames<Enum, count>& names) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) text += i + 1 == count ? " or " : ", ";
    text += names[i].name;
  }
  return text;
}

// Parses a user's choice. `what` names the input ("--neuron-bind") and `kind` says what the
// value should have been ("a CPU binding mode"); the error reads
// "--neuron-bind=fast is not a CPU binding mode: use numa, cores or none".
template <typename Enum, std::size_t count>
Enum parse_named(const EnumNames<Enum, count>& names, std::string_view text, std::string_view what,
                 std::string_view kind) {
  if (const auto value = value_named(names, text)) return *value;
  throw Error(std::string(what) + "=" + std::string(text) + " is not " + std::string(kind) +
              ": use " + list_names(names));
}

}  // namespace trn
