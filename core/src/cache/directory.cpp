#include "directory.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "trn/common/error.hpp"

namespace trn::cache::detail {

void throw_errno(const std::string& what, const std::filesystem::path& path, int error_number,
                 const std::string& fix) {
  throw Error(what + " " + path.string() + ": " + std::strerror(error_number) + "; " + fix);
}

std::optional<OpenDirectory> OpenDirectory::open(const std::filesystem::path& dir) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) {
    if (errno == ENOENT) return std::nullopt;
    throw_errno("cannot read the folder", dir, errno, "check that it exists and is readable");
  }
  return OpenDirectory(handle, dir);
}

OpenDirectory::OpenDirectory(DIR* handle, std::filesystem::path path)
    : handle_(handle), path_(std::move(path)) {}

OpenDirectory::OpenDirectory(OpenDirectory&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

OpenDirectory::~OpenDirectory() {
  if (handle_ != nullptr) ::closedir(handle_);
}

std::vector<DirItem> OpenDirectory::items() {
  std::vector<DirItem> result;
  errno = 0;
  while (const dirent* item = ::readdir(handle_)) {
    const std::string_view name = item->d_name;
    if (name == "." || name == "..") continue;
    bool is_dir = item->d_type == DT_DIR;
    if (item->d_type == DT_UNKNOWN) {  // some file systems (XFS v4, some NFS) leave it out
      const auto info = stat_of(std::string(name));
      is_dir = info && S_ISDIR(info->st_mode);
    }
    result.push_back({std::string(name), is_dir});
    errno = 0;
  }
  if (errno != 0) throw_errno("cannot list the folder", path_, errno, "check that it is readable");
  return result;
}

std::optional<struct stat> OpenDirectory::stat_of(const std::string& name) const {
  struct stat info {};
  if (::fstatat(::dirfd(handle_), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) return info;
  if (errno == ENOENT) return std::nullopt;
  throw_errno("cannot inspect", path_ / name, errno, "check the folder's permissions");
}

std::optional<std::vector<DirItem>> list_directory(const std::filesystem::path& dir) {
  auto opened = OpenDirectory::open(dir);
  if (!opened) return std::nullopt;
  auto items = opened->items();
  std::sort(items.begin(), items.end(),
            [](const DirItem& a, const DirItem& b) { return a.name < b.name; });
  return items;
}

}  // namespace trn::cache::detail
