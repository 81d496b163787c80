#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trn::cache::detail {

struct DirItem {
  std::string name;
  bool is_dir = false;
};

// The names in a folder (without "." and ".."), sorted; nullopt when the folder does not exist.
// Plain POSIX, not std::filesystem: a warm pull lists thousands of folders and must stay cheap.
std::optional<std::vector<DirItem>> list_directory(const std::filesystem::path& dir);

// An open folder whose files are looked at by name relative to it (fstatat), which spares the
// kernel a full path walk per file.
class OpenDirectory {
 public:
  // nullopt when the folder does not exist; other errors throw trn::Error naming it.
  static std::optional<OpenDirectory> open(const std::filesystem::path& dir);
  OpenDirectory(OpenDirectory&& other) noexcept;
  OpenDirectory& operator=(OpenDirectory&&) = delete;
  OpenDirectory(const OpenDirectory&) = delete;
  OpenDirectory& operator=(const OpenDirectory&) = delete;
  ~OpenDirectory();

  // Without "." and ".."; unsorted; once per open. A symbolic link to a folder is not a folder.
  std::vector<DirItem> items();
  // lstat of a name in this folder; nullopt when it does not exist.
  std::optional<struct stat> stat_of(const std::string& name) const;

 private:
  OpenDirectory(DIR* handle, std::filesystem::path path);
  DIR* handle_;
  std::filesystem::path path_;
};

// "<what> <path>: <strerror(errno)>; <fix>" as a trn::Error.
[[noreturn]] void throw_errno(const std::string& what, const std::filesystem::path& path,
                              int error_number, const std::string& fix);

}  // namespace trn::cache::detail
