#include "trn/common/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "trn/common/error.hpp"
#include "trn/common/unique_fd.hpp"

namespace trn {
namespace {

FileRead failure(int error_number) {
  FileRead out;
  out.error_number = error_number;
  if (error_number == ENOENT || error_number == ENOTDIR) {
    out.status = FileRead::Status::kMissing;
  } else if (error_number == EACCES || error_number == EPERM) {
    out.status = FileRead::Status::kPermissionDenied;
  } else {
    out.status = FileRead::Status::kFailed;
  }
  return out;
}

// A new hidden file ".<name>.<host>.<pid>.<n>" in `dir`, made with O_EXCL: unique across the
// nodes that share a file system and the threads of this process. Mode 0666 less the umask.
UniqueFd create_temporary(const std::filesystem::path& dir, const std::string& name,
                          std::string* temp) {
  static std::atomic<unsigned> counter{0};
  std::array<char, 256> host{};
  ::gethostname(host.data(), host.size() - 1);
  for (int attempt = 0; attempt < 100; ++attempt) {
    *temp = (dir / ("." + name + "." + host.data() + "." + std::to_string(::getpid()) + "." +
                    std::to_string(counter++)))
                .string();
    UniqueFd fd(::open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd.valid() || errno != EEXIST) return fd;
  }
  return UniqueFd();
}

FileRead read_all(const UniqueFd& fd, std::size_t max_bytes) {
  FileRead out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return failure(errno);
    }
    if (n == 0) break;
    out.text.append(buffer, static_cast<std::size_t>(n));
    if (out.text.size() > max_bytes) return failure(EFBIG);
  }
  out.status = FileRead::Status::kOk;
  return out;
}

}  // namespace

FileRead try_read_text(const std::filesystem::path& path) {
  return try_read_regular_file(path, kMaxTextFileBytes);
}

std::string read_failure_reason(const FileRead& read) {
  switch (read.error_number) {
    case EINVAL:
      return "it is not a regular file (a FIFO, socket or device)";
    case EISDIR:
      return "it is a folder";
    case EFBIG:
      return "it is larger than the " + std::to_string(kMaxTextFileBytes >> 20) +
             " MiB a text file may have here";
    default:
      return std::strerror(read.error_number);
  }
}

FileRead try_read_regular_file(const std::filesystem::path& path, std::size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return failure(errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return failure(errno);
  if (S_ISDIR(info.st_mode)) return failure(EISDIR);
  if (!S_ISREG(info.st_mode)) return failure(EINVAL);
  if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) return failure(EFBIG);
  return read_all(fd, max_bytes);  // the file may grow while it is read
}

std::string read_text(const std::filesystem::path& path, std::string_view fix) {
  FileRead read = try_read_text(path);
  if (!read.ok()) {
    throw Error("cannot read " + path.string() + ": " + read_failure_reason(read) + ": " +
                std::string(fix));
  }
  return std::move(read.text);
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           std::optional<mode_t> mode, std::string_view fix) {
  const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  const std::string fix_text =
      fix.empty() ? "make " + dir.string() + " a writable directory or choose another path"
                  : std::string(fix);
  const auto fail = [&](const std::string& step, int error_number) {
    throw Error("cannot write " + path.string() + " (" + step + ": " + std::strerror(error_number) +
                "): " + fix_text);
  };
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail("create directory", ec.value());
  std::string temp;
  UniqueFd fd = create_temporary(dir, path.filename().string(), &temp);
  if (!fd.valid()) fail("create temporary file", errno);
  const auto discard = [&](const std::string& step) {
    const int saved = errno;
    ::unlink(temp.c_str());
    fail(step, saved);
  };
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      discard("write");
    }
    written += static_cast<std::size_t>(n);
  }
  if (mode && ::fchmod(fd.get(), *mode) != 0) discard("chmod");
  if (::fsync(fd.get()) != 0) discard("fsync");
  if (fd.close() != 0) discard("close");
  if (::rename(temp.c_str(), path.c_str()) != 0) discard("rename");
}

}  // namespace trn
