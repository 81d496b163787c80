#include "trn/cache/compiler_flags.hpp"

#include <vector>

namespace trn::cache {

std::optional<std::string> cache_dir_in_flags(std::string_view flags) {
  std::vector<std::string_view> tokens;
  std::size_t pos = 0;
  while (pos < flags.size()) {
    const auto start = flags.find_first_not_of(" \t\n", pos);
    if (start == std::string_view::npos) break;
    const auto end = flags.find_first_of(" \t\n", start);
    tokens.push_back(flags.substr(start, end == std::string_view::npos ? flags.npos : end - start));
    pos = end == std::string_view::npos ? flags.size() : end;
  }
  constexpr std::string_view option = "--cache_dir";
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] == option) {
      return i + 1 < tokens.size() ? std::string(tokens[i + 1]) : std::string();
    }
    if (tokens[i].size() > option.size() && tokens[i].substr(0, option.size()) == option &&
        tokens[i][option.size()] == '=') {
      return std::string(tokens[i].substr(option.size() + 1));
    }
  }
  return std::nullopt;
}

}  // namespace trn::cache
