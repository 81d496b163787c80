#include "trn/cache/cache_stream.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <string_view>

#include "directory.hpp"
#include "trn/cache/entry.hpp"
#include "trn/cache/layout.hpp"
#include "trn/cache/scan.hpp"
#include "trn/common/error.hpp"
#include "trn/common/unique_fd.hpp"

namespace trn::cache {
namespace {

constexpr std::string_view magic = "TRNCACHE1";
constexpr char file_mark = 'F';
constexpr char end_mark = 'Z';
constexpr std::size_t max_path = 1024;
constexpr std::size_t chunk = std::size_t{1} << 20;
constexpr std::string_view part_suffix = ".trn-part";

template <typename Number>
void put_number(std::string& out, Number value) {
  for (int shift = 8 * (static_cast<int>(sizeof(Number)) - 1); shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

template <typename Number>
Number get_number(const char* data) {
  Number value = 0;
  for (std::size_t i = 0; i < sizeof(Number); ++i) {
    value = static_cast<Number>((value << 8) | static_cast<unsigned char>(data[i]));
  }
  return value;
}

// The entry's regular files, model.done last.
std::vector<std::string> files_to_send(const std::filesystem::path& entry_dir) {
  std::vector<std::string> names;
  auto dir = detail::OpenDirectory::open(entry_dir);
  if (!dir) return names;
  for (const auto& item : dir->items()) {
    if (item.is_dir || is_lock_file_name(item.name)) continue;
    const auto info = dir->stat_of(item.name);
    if (info && S_ISREG(info->st_mode)) names.push_back(item.name);
  }
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    const bool a_done = a == done_file;
    const bool b_done = b == done_file;
    return a_done != b_done ? b_done : a < b;
  });
  return names;
}

// Sends one file; false when it vanished before it was opened.
bool send_file(const std::filesystem::path& path, const std::string& name_in_cache,
               std::vector<char>& buffer, ByteSink& sink, StreamCounts& counts) {
  UniqueFd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) {
    if (errno == ENOENT) return false;
    detail::throw_errno("cannot open", path, errno, "check the cache's permissions");
  }
  struct stat info {};
  if (::fstat(in.get(), &info) != 0) detail::throw_errno("cannot inspect", path, errno, "");
  std::string header(1, file_mark);
  put_number(header, static_cast<std::uint16_t>(name_in_cache.size()));
  header += name_in_cache;
  put_number(header, static_cast<std::uint32_t>(info.st_mode & 0777));
  const auto size = static_cast<std::uint64_t>(info.st_size);
  put_number(header, size);
  sink.write(header.data(), header.size());
  for (std::uint64_t sent = 0; sent < size;) {
    const ssize_t got =
        ::read(in.get(), buffer.data(),
               static_cast<std::size_t>(std::min<std::uint64_t>(chunk, size - sent)));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) detail::throw_errno("cannot read", path, errno, "check the source cache");
    if (got == 0) {
      throw Error(path.string() + " shrank while it was being sent; run the pull again");
    }
    sink.write(buffer.data(), static_cast<std::size_t>(got));
    sent += static_cast<std::uint64_t>(got);
  }
  counts.files++;
  counts.bytes += size;
  return true;
}

// A stream's path must name a file of an entry, nothing else (it comes from another node).
std::optional<std::string> layout_problem(std::string_view path) {
  const auto first = path.find('/');
  const auto second = first == std::string_view::npos ? first : path.find('/', first + 1);
  if (second == std::string_view::npos || path.find('/', second + 1) != std::string_view::npos) {
    return "is not <version>/<module>/<file>";
  }
  const auto version = path.substr(0, first);
  const auto module = path.substr(first + 1, second - first - 1);
  const auto file = path.substr(second + 1);
  if (!is_version_dir_name(version)) return "does not start with a neuronxcc-<version> folder";
  if (!is_module_dir_name(module)) return "has no MODULE_<hash> folder";
  if (file.empty() || file == "." || file == ".." || file.ends_with(part_suffix)) {
    return "names no file";
  }
  if (is_lock_file_name(file)) return "names a lock file";
  if (path.find('\0') != std::string_view::npos) return "holds a NUL byte";
  return std::nullopt;
}

class StreamReader {
 public:
  StreamReader(ByteSource& source) : source_(source) {}

  // Exactly `size` bytes; false at the end of the source.
  bool read_exact(char* data, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
      const std::size_t got = source_.read_some(data + done, size - done);
      if (got == 0) return false;
      done += got;
    }
    return true;
  }

 private:
  ByteSource& source_;
};

// Receives one file's bytes into `target` (through a temporary name).
void receive_file(StreamReader& reader, const std::filesystem::path& target, std::uint32_t mode,
                  std::uint64_t size, std::vector<char>& buffer, std::string& problem) {
  std::filesystem::create_directories(target.parent_path());
  auto part = target;
  part += part_suffix;
  UniqueFd out(
      ::open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode & 0777) | 0600));
  if (!out.valid()) detail::throw_errno("cannot create", part, errno, "check free space");
  for (std::uint64_t received = 0; received < size;) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, size - received));
    if (!reader.read_exact(buffer.data(), want)) {
      ::unlink(part.c_str());
      problem = "the stream ended inside " + target.filename().string();
      return;
    }
    for (std::size_t done = 0; done < want;) {
      const ssize_t put = ::write(out.get(), buffer.data() + done, want - done);
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) {
        const int error_number = errno;
        ::unlink(part.c_str());
        detail::throw_errno("cannot write", part, error_number, "check free space");
      }
      done += static_cast<std::size_t>(put);
    }
    received += want;
  }
  if (out.close() != 0 || ::rename(part.c_str(), target.c_str()) != 0) {
    const int error_number = errno;
    ::unlink(part.c_str());
    detail::throw_errno("cannot put in place", target, error_number, "check free space");
  }
}

}  // namespace

StreamCounts write_cache_stream(const std::filesystem::path& root,
                                const std::optional<std::string>& compiler_version,
                                ByteSink& sink) {
  StreamCounts counts;
  std::vector<char> buffer(chunk);
  sink.write(magic.data(), magic.size());
  for (const auto& entry : scan(root, compiler_version)) {
    if (entry.state != EntryState::kDone) continue;
    auto entry_in_cache = std::string(version_dir_prefix);
    entry_in_cache.append(entry.compiler_version).append("/").append(entry.module).append("/");
    bool done_sent = false;
    for (const auto& name : files_to_send(entry.path)) {
      // Only what is still complete: a compile that started since the scan has a lock.
      if (name == done_file) {
        const auto now = read_entry(entry.path);
        if (!now || now->state != EntryState::kDone) break;
      }
      if (!send_file(entry.path / name, entry_in_cache + name, buffer, sink, counts)) break;
      done_sent = name == done_file;
    }
    if (done_sent) counts.entries++;
  }
  sink.write(&end_mark, 1);
  return counts;
}

StreamReadOutcome read_cache_stream(ByteSource& source, const std::filesystem::path& inbox) {
  StreamReadOutcome outcome;
  StreamReader reader(source);
  try {
    std::array<char, magic.size()> head{};
    if (!reader.read_exact(head.data(), head.size())) {
      outcome.problem = "the stream ended before its header";
      return outcome;
    }
    if (std::string_view(head.data(), head.size()) != magic) {
      outcome.problem = "the stream does not start with " + std::string(magic);
      return outcome;
    }
    std::vector<char> path(max_path);
    std::vector<char> buffer(chunk);
    while (true) {
      char mark = 0;
      std::array<char, 2> length{};
      if (!reader.read_exact(&mark, 1)) {
        outcome.problem = "the stream ended without its end mark";
        return outcome;
      }
      if (mark == end_mark) break;
      if (mark != file_mark) {
        outcome.problem = "unknown record in the stream";
        return outcome;
      }
      std::array<char, 12> numbers{};
      if (!reader.read_exact(length.data(), length.size())) {
        outcome.problem = "the stream ended inside a file header";
        return outcome;
      }
      const auto path_size = get_number<std::uint16_t>(length.data());
      if (path_size == 0 || path_size > max_path) {
        outcome.problem = "a path in the stream is empty or longer than 1024 bytes";
        return outcome;
      }
      if (!reader.read_exact(path.data(), path_size) ||
          !reader.read_exact(numbers.data(), numbers.size())) {
        outcome.problem = "the stream ended inside a file header";
        return outcome;
      }
      const std::string name(path.data(), path_size);
      if (const auto problem = layout_problem(name)) {
        outcome.problem = "the stream's path " + name + " " + *problem;
        return outcome;
      }
      const auto mode = get_number<std::uint32_t>(numbers.data());
      const auto size = get_number<std::uint64_t>(numbers.data() + 4);
      receive_file(reader, inbox / name, mode, size, buffer, outcome.problem);
      if (!outcome.problem.empty()) return outcome;
      outcome.counts.files++;
      outcome.counts.bytes += size;
      if (name.ends_with("/" + std::string(done_file))) outcome.counts.entries++;
    }
    outcome.complete = true;
  } catch (const std::exception& e) {
    outcome.problem = e.what();
  }
  return outcome;
}

}  // namespace trn::cache
