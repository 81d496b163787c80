#include "trn/common/id_list.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"

namespace trn {
namespace {

[[noreturn]] void fail(std::string_view text, std::string_view what, std::string_view why) {
  throw Error(std::string(what) + ": cannot read '" + std::string(text) + "' as an id list (" +
              std::string(why) + "): expected a list such as 0-3,8");
}

unsigned parse_id(std::string_view token, std::string_view text, std::string_view what) {
  unsigned value = 0;
  const auto* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (token.empty() || ec != std::errc() || ptr != end) fail(text, what, "not a number");
  if (value > IdList::kMaxId) fail(text, what, "id too large");
  return value;
}

}  // namespace

IdList::IdList(std::vector<unsigned> ids) : ids_(std::move(ids)) {
  std::sort(ids_.begin(), ids_.end());
  ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
}

IdList IdList::parse(std::string_view text, std::string_view what) {
  const std::string_view body = trim(text);
  std::vector<unsigned> ids;
  if (body.empty()) return IdList();
  std::size_t pos = 0;
  while (pos <= body.size()) {
    const auto comma = body.find(',', pos);
    const auto item = body.substr(pos, comma == std::string_view::npos ? body.npos : comma - pos);
    const auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      ids.push_back(parse_id(item, text, what));
    } else {
      const unsigned first = parse_id(item.substr(0, dash), text, what);
      const unsigned last = parse_id(item.substr(dash + 1), text, what);
      if (last < first) fail(text, what, "range runs backwards");
      for (unsigned id = first; id <= last; ++id) ids.push_back(id);
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return IdList(std::move(ids));
}

IdList IdList::range(unsigned first, unsigned count) {
  IdList out;
  out.ids_.reserve(count);
  for (unsigned i = 0; i < count; ++i) out.ids_.push_back(first + i);
  return out;
}

std::string IdList::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < ids_.size();) {
    std::size_t j = i;
    while (j + 1 < ids_.size() && ids_[j + 1] == ids_[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids_[i]);
    if (j > i) out += '-' + std::to_string(ids_[j]);
    i = j + 1;
  }
  return out;
}

bool IdList::contains(unsigned id) const {
  return std::binary_search(ids_.begin(), ids_.end(), id);
}

bool IdList::contains_all(const IdList& other) const {
  return std::includes(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end());
}

bool IdList::intersects(const IdList& other) const { return !intersection(other).empty(); }

IdList IdList::intersection(const IdList& other) const {
  IdList out;
  std::set_intersection(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end(),
                        std::back_inserter(out.ids_));
  return out;
}

IdList IdList::united(const IdList& other) const {
  IdList out;
  std::set_union(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end(),
                 std::back_inserter(out.ids_));
  return out;
}

}  // namespace trn
