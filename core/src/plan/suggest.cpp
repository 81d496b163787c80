#include "suggest.hpp"

#include <algorithm>
#include <cctype>

namespace trn::plan {
namespace {

std::string normalised(std::string_view word) {
  std::string out;
  for (const char c : word) {
    out.push_back(c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// Optimal string alignment distance: a swap of two neighbours ("bacth") costs one edit, as
// typing errors do.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string wanted = normalised(word);
  // Up to two edits, fewer for short words, so "lr" does not suggest "pp".
  const std::size_t allowed = std::min<std::size_t>(2, std::max<std::size_t>(wanted.size() / 3, 1));
  std::string_view best;
  std::size_t best_distance = allowed + 1;
  for (const auto candidate : candidates) {
    const std::size_t distance = edit_distance(wanted, normalised(candidate));
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (best.empty()) return "";
  return " (did you mean '" + std::string(best) + "'?)";
}

std::string join_names(const std::vector<std::string_view>& names) {
  std::string out;
  for (const auto name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace trn::plan
