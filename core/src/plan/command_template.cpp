#include "trn/plan/command_template.hpp"

#include <algorithm>

#include "plan_fields.hpp"
#include "suggest.hpp"
#include "trn/common/error.hpp"

namespace trn::plan {
namespace {

std::vector<std::string_view> known_views() {
  const auto& known = known_placeholders();
  return {known.begin(), known.end()};
}

// One piece of a template: literal text, or the name of a placeholder.
struct Piece {
  bool placeholder = false;
  std::string text;
};

std::vector<Piece> parse(std::string_view text) {
  std::vector<Piece> pieces;
  std::string literal;
  const auto flush = [&] {
    if (!literal.empty()) pieces.push_back({false, std::move(literal)});
    literal.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      literal.push_back(c);
      ++i;
    } else if (c == '}') {
      throw Error("a lone '}' in '" + std::string(text) + "': write '}}' for a literal brace");
    } else if (c == '{') {
      const auto close = text.find_first_of("{}", i + 1);
      if (close == std::string_view::npos || text[close] != '}') {
        throw Error("a '{' without its '}' in '" + std::string(text) +
                    "': close the placeholder, or write '{{' for a literal brace");
      }
      const std::string name(text.substr(i + 1, close - i - 1));
      const auto& known = known_placeholders();
      if (!std::binary_search(known.begin(), known.end(), name)) {
        throw Error("unknown placeholder {" + name + "} in '" + std::string(text) + "'" +
                    did_you_mean(name, known_views()) + "; known placeholders: " +
                    join_names(known_views()) + " (write '{{' and '}}' for literal braces)");
      }
      flush();
      pieces.push_back({true, name});
      i = close;
    } else {
      literal.push_back(c);
    }
  }
  flush();
  return pieces;
}

}  // namespace

const std::vector<std::string>& known_placeholders() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& field : detail::plan_fields()) {
      if (!field.placeholder.empty()) v.emplace_back(field.placeholder);
    }
    std::sort(v.begin(), v.end());
    return v;
  }();
  return names;
}

std::vector<std::string> placeholders_in(std::string_view text) {
  std::vector<std::string> names;
  for (auto& piece : parse(text)) {
    if (piece.placeholder) names.push_back(std::move(piece.text));
  }
  return names;
}

std::string render_template(std::string_view text, const PlaceholderValues& values) {
  std::string out;
  for (const auto& piece : parse(text)) {
    if (!piece.placeholder) {
      out += piece.text;
      continue;
    }
    const auto value = values.find(piece.text);
    if (value == values.end()) {
      throw Error("{" + piece.text + "} has no value: the profile sets no " + piece.text +
                  "; set it in the profile (" + piece.text + ": ...) or with --set " + piece.text +
                  "=VALUE");
    }
    out += value->second;
  }
  return out;
}

std::vector<std::string> render_command(const std::vector<std::string>& words,
                                        const PlaceholderValues& values) {
  std::vector<std::string> argv;
  argv.reserve(words.size());
  for (const auto& word : words) argv.push_back(render_template(word, values));
  return argv;
}

}  // namespace trn::plan
