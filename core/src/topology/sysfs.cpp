#include "sysfs.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"

namespace trn::topology::sysfs {
namespace {

[[noreturn]] void garbage(std::string_view text, const std::filesystem::path& file,
                          std::string_view expected) {
  throw Error(file.string() + ": unexpected contents '" + std::string(text) + "' (expected " +
              std::string(expected) +
              "): the file is not what the kernel writes there; check the filesystem root");
}

template <typename T>
T parse_number(std::string_view text, const std::filesystem::path& file, int base,
               std::string_view expected) {
  T value{};
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (text.empty() || ec != std::errc() || ptr != end) garbage(text, file, expected);
  return value;
}

}  // namespace

std::filesystem::path under(const std::filesystem::path& root, std::string_view relative) {
  return root / std::filesystem::path(relative);
}

std::string read(const std::filesystem::path& file, std::string_view fix) {
  return std::string(trim(read_text(file, fix)));
}

unsigned parse_unsigned(std::string_view text, const std::filesystem::path& file) {
  return parse_number<unsigned>(text, file, 10, "a non-negative number");
}

int parse_int(std::string_view text, const std::filesystem::path& file) {
  return parse_number<int>(text, file, 10, "a number");
}

unsigned parse_hex(std::string_view text, const std::filesystem::path& file) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
    garbage(text, file, "a hexadecimal id such as 0x1d0f");
  }
  return parse_number<unsigned>(text.substr(2), file, 16, "a hexadecimal id such as 0x1d0f");
}

std::vector<unsigned> parse_number_list(std::string_view text, const std::filesystem::path& file) {
  std::vector<unsigned> out;
  std::string_view rest = trim(text);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto item = trim(rest.substr(0, comma));
    unsigned value = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size()) {
      garbage(trim(text), file, "numbers separated by ', '");
    }
    out.push_back(value);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

std::vector<std::string> list_directory(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) {
      return names;
    }
    throw Error("cannot list " + dir.string() + ": " + ec.message() +
                ": check the filesystem root and its permissions");
  }
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) {
    throw Error("cannot list " + dir.string() + ": " + ec.message() +
                ": check the filesystem root and its permissions");
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace trn::topology::sysfs
