#include "trn/common/fnv1a.hpp"

#include <array>

namespace trn {

std::uint64_t fnv1a_64(std::string_view bytes) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string fnv1a_64_hex(std::string_view bytes) {
  constexpr std::array<char, 16> digits = {'0', '1', '2', '3', '4', '5', '6', '7',
                                           '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
  auto hash = fnv1a_64(bytes);
  std::string text(16, '0');
  for (auto it = text.rbegin(); it != text.rend(); ++it, hash >>= 4U) *it = digits[hash & 0xFU];
  return text;
}

}  // namespace trn
