#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trn::plan {

// " (did you mean 'micro_batch'?)" when one candidate is a likely misspelling of `word`
// (letters swapped, dropped or doubled, '-' for '_', other case), else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);

// "a, b, c"
std::string join_names(const std::vector<std::string_view>& names);

}  // namespace trn::plan
