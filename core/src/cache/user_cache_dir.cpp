#include "trn/cache/user_cache_dir.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "trn/common/error.hpp"
#include "trn/common/unique_fd.hpp"

namespace trn::cache {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
constexpr const char* kFix =
    "remove or fix it as root, or point local_cache= in plugstack.conf "
    "elsewhere";

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& why) {
  throw Error("refusing the compile cache directory " + path.string() + ": " + why + ": " + kFix);
}

// Opens `name` under `parent` without following a symlink; -1 with errno on failure.
UniqueFd open_dir(const UniqueFd& parent, const std::string& name) {
  return UniqueFd(::openat(parent.get(), name.c_str(), kDirFlags));
}

UniqueFd open_checked(const UniqueFd& parent, const std::string& name,
                      const std::filesystem::path& path) {
  UniqueFd fd = open_dir(parent, name);
  if (fd.get() < 0) {
    const int error = errno;
    if (error == ELOOP || error == ENOTDIR)
      refuse(path, "it is a symbolic link or not a directory");
    if (error == ENOENT) refuse(path, "it does not exist");
    refuse(path, std::string("cannot open it: ") + std::strerror(error));
  }
  return fd;
}

struct stat stat_of(const UniqueFd& fd, const std::filesystem::path& path) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) refuse(path, std::string("fstat: ") + std::strerror(errno));
  return st;
}

std::string octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
  return text;
}

void check_above(const UniqueFd& fd, const std::filesystem::path& path) {
  const struct stat st = stat_of(fd, path);
  if (st.st_uid != 0)
    refuse(path, "it is owned by uid " + std::to_string(st.st_uid) + ", not root");
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
    refuse(path,
           "it is writable by others (mode " + octal(st.st_mode) + ") without the sticky bit");
  }
}

// <local_cache> itself: made here when missing.
UniqueFd cache_root(const UniqueFd& parent, const std::string& name,
                    const std::filesystem::path& path) {
  if (::mkdirat(parent.get(), name.c_str(), 0755) == 0) {
    UniqueFd fd = open_checked(parent, name, path);
    if (::fchmod(fd.get(), 0755) != 0) refuse(path, std::string("fchmod: ") + std::strerror(errno));
  } else if (errno != EEXIST) {
    refuse(path, std::string("cannot create it: ") + std::strerror(errno));
  }
  UniqueFd fd = open_checked(parent, name, path);
  const struct stat st = stat_of(fd, path);
  if (st.st_uid != 0) {
    refuse(path, "it is owned by uid " + std::to_string(st.st_uid) +
                     ", not root (it was not "
                     "created by spank_trn)");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    refuse(path, "it is writable by group or others (mode " + octal(st.st_mode) +
                     "), so users could plant entries in it");
  }
  return fd;
}

void check_user_name(const std::string& user) {
  if (user.empty() || user == "." || user == ".." || user.find('/') != std::string::npos) {
    throw Error("user name '" + user + "' cannot name a cache directory: check the passwd entry");
  }
}

}  // namespace

std::filesystem::path ensure_user_cache_dir(const std::filesystem::path& local_cache,
                                            const std::string& user, uid_t uid, gid_t gid,
                                            bool* created) {
  if (created != nullptr) *created = false;
  check_user_name(user);
  const std::filesystem::path root = local_cache.lexically_normal();
  if (!root.is_absolute() || root == root.root_path()) {
    refuse(root, "it must be an absolute path below /");
  }
  std::vector<std::string> parts;
  for (const auto& part : root.relative_path()) {
    if (!part.empty()) parts.push_back(part.string());
  }
  UniqueFd dir(::open("/", kDirFlags));
  if (dir.get() < 0) refuse("/", std::string("cannot open it: ") + std::strerror(errno));
  std::filesystem::path walked = "/";
  check_above(dir, walked);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    walked /= parts[i];
    UniqueFd next = open_checked(dir, parts[i], walked);
    check_above(next, walked);
    dir = std::move(next);
  }
  UniqueFd root_fd = cache_root(dir, parts.back(), root);

  std::filesystem::path mine = root / user;
  if (::mkdirat(root_fd.get(), user.c_str(), 0700) == 0) {
    if (created != nullptr) *created = true;
  } else if (errno != EEXIST) {
    refuse(mine, std::string("cannot create it: ") + std::strerror(errno));
  }
  UniqueFd user_fd = open_checked(root_fd, user, mine);
  const struct stat st = stat_of(user_fd, mine);
  if (st.st_uid == 0 && uid != 0) {
    // Only root can create entries in root_fd: this is our own directory, not yet handed over.
    if (::fchmod(user_fd.get(), 0700) != 0 || ::fchown(user_fd.get(), uid, gid) != 0) {
      refuse(mine, std::string("cannot hand it to uid ") + std::to_string(uid) + ": " +
                       std::strerror(errno));
    }
  } else if (st.st_uid != uid) {
    refuse(mine, "it is owned by uid " + std::to_string(st.st_uid) + ", not by " + user + " (uid " +
                     std::to_string(uid) + ")");
  }
  return mine;
}

std::string user_name(uid_t uid) {
  std::vector<char> buffer(4096);
  struct passwd entry {};
  struct passwd* found = nullptr;
  while (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == ERANGE &&
         buffer.size() < (1u << 20)) {
    buffer.resize(buffer.size() * 4);
  }
  if (found == nullptr || found->pw_name == nullptr || *found->pw_name == '\0') {
    return std::to_string(uid);
  }
  return found->pw_name;
}

}  // namespace trn::cache
