#include "trn/common/error.hpp"
#include "trn/plan/command_template.hpp"

namespace trn::plan {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool needs_quotes(const std::string& word) {
  if (word.empty()) return true;
  for (const char c : word) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       std::string_view("_./:=,+@%-").find(c) != std::string_view::npos;
    if (!plain) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> split_command_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is_blank(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const auto close = text.find('\'', i + 1);
      if (close == std::string_view::npos) {
        throw Error("unclosed ' in the command \"" + std::string(text) +
                    "\": close the quote, or write \\' for a literal one");
      }
      word.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) {
          ++j;
        }
        word.push_back(text[j]);
      }
      if (j >= text.size()) {
        throw Error("unclosed \" in the command '" + std::string(text) +
                    "': close the quote, or write \\\" for a literal one");
      }
      i = j;
    } else if (c == '\\' && i + 1 < text.size()) {
      word.push_back(text[++i]);
    } else {
      word.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string display_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) {
    if (!out.empty()) out += ' ';
    if (!needs_quotes(word)) {
      out += word;
      continue;
    }
    out += '\'';
    for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace trn::plan
