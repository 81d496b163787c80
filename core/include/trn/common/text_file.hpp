#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace trn {

// Reading small text files (sysfs attributes, procfs, caches) with the reason a read failed,
// so callers can tell "absent" (normal for optional hardware) from "not allowed" and garbage.
struct FileRead {
  enum class Status { kOk, kMissing, kPermissionDenied, kFailed };
  Status status = Status::kFailed;
  std::string text;
  int error_number = 0;  // errno when status != kOk

  bool ok() const { return status == Status::kOk; }
};

// Files larger than this are refused (sysfs attributes are a page; caches are far smaller).
inline constexpr std::size_t kMaxTextFileBytes = 16u << 20;

// A regular file only, as try_read_regular_file with kMaxTextFileBytes: sysfs and /proc
// attributes are regular files; a FIFO planted in a tree never hangs the reader.
FileRead try_read_text(const std::filesystem::path& path);

// Why a read failed, for messages: "it is not a regular file (...)" for EINVAL, "it is a folder",
// "it is larger than N bytes" for EFBIG, else strerror.
std::string read_failure_reason(const FileRead& read);

// For files a user names: opened without blocking (a FIFO never hangs the reader), anything
// but a regular file refused (error_number EISDIR for a directory, EINVAL for a FIFO, device
// or socket), and files over max_bytes refused (EFBIG) before they are read.
FileRead try_read_regular_file(const std::filesystem::path& path, std::size_t max_bytes);

// Reads a file or throws trn::Error "cannot read <path>: <reason>: <fix>".
std::string read_text(const std::filesystem::path& path, std::string_view fix);

// Surrounding whitespace removed (sysfs values end in a newline, some do not).
std::string_view trim(std::string_view text);

// Writes `content` to a temporary file next to `path`, flushes it to disk and renames it over
// `path`, so readers never see a partial file, even after a crash. Creates the parent directory
// (mode 0755) when missing. `mode`: the file's permission bits; std::nullopt leaves them as
// open(2) makes them (0666 less the umask), for files shared with a group through the umask.
// Throws trn::Error "cannot write <path> (<step>: <reason>): <fix>"; an empty `fix` says to
// make the parent a writable directory or choose another path.
void write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           std::optional<mode_t> mode, std::string_view fix = {});

}  // namespace trn
