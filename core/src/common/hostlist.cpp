#include "trn/common/hostlist.hpp"

#include "trn/common/error.hpp"

namespace trn {
namespace {

[[noreturn]] void fail(std::string_view hostlist, std::string_view why) {
  throw Error("node list '" + std::string(hostlist) + "' is not a Slurm hostlist (" +
              std::string(why) + "): expected e.g. trn-st-[003-005,9],other1");
}

// "003-005,9" -> "003": a bracket's first element, digits only.
std::string first_in_brackets(std::string_view inside, std::string_view hostlist) {
  const auto end = inside.find_first_of(",-");
  const auto first = inside.substr(0, end);
  if (first.empty()) fail(hostlist, "empty range in brackets");
  for (char c : inside) {
    if ((c < '0' || c > '9') && c != ',' && c != '-') fail(hostlist, "non-digit in brackets");
  }
  return std::string(first);
}

}  // namespace

std::string first_host(std::string_view hostlist) {
  std::string host;
  std::size_t i = 0;
  while (i < hostlist.size() && hostlist[i] != ',') {
    const char c = hostlist[i];
    if (c == ']') fail(hostlist, "']' without '['");
    if (c == ' ' || c == '\t' || c == '\n') fail(hostlist, "whitespace");
    if (c != '[') {
      host += c;
      ++i;
      continue;
    }
    const auto close = hostlist.find(']', i);
    if (close == std::string_view::npos) fail(hostlist, "'[' without ']'");
    const auto inside = hostlist.substr(i + 1, close - i - 1);
    if (inside.find('[') != std::string_view::npos) fail(hostlist, "nested '['");
    host += first_in_brackets(inside, hostlist);
    i = close + 1;
  }
  if (host.empty()) fail(hostlist, "no host");
  return host;
}

}  // namespace trn
