#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace trn {

// The offset of the first byte of `text` that does not belong to well-formed UTF-8 (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF); nullopt when all of it is.
// Outside text must be checked before it reaches JSON, whose strings are UTF-8 only.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace trn
