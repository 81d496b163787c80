#include "trn/cache/compiler_version.hpp"

#include <cctype>

namespace trn::cache {

std::optional<std::string> parse_compiler_version(std::string_view output) {
  constexpr std::string_view label = "NeuronX Compiler version";
  const auto at = output.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  auto rest = output.substr(at + label.size());
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  std::size_t end = 0;
  while (end < rest.size() && std::isspace(static_cast<unsigned char>(rest[end])) == 0) end++;
  if (end == 0) return std::nullopt;
  return std::string(rest.substr(0, end));
}

}  // namespace trn::cache
