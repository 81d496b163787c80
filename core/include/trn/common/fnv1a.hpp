#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace trn {

// 64-bit FNV-1a (offset basis 14695981039346656037, prime 1099511628211): a stable,
// dependency-free hash for naming things. Not cryptographic; fine for telling configurations
// apart (2^-64 per pair), not for anything an attacker chooses.
std::uint64_t fnv1a_64(std::string_view bytes);

// The hash as 16 lowercase hexadecimal digits.
std::string fnv1a_64_hex(std::string_view bytes);

}  // namespace trn
