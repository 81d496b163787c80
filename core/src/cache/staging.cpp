#include "staging.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <optional>
#include <string>
#include <system_error>

#include "directory.hpp"
#include "file_times.hpp"

namespace trn::cache::detail {

namespace {

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "unknown-host";
  return name.data();
}

struct TempOwner {
  long pid = 0;
  std::string host;
};

// ".trn-tmp.<pid>.<n>.<host>" -> pid and host; nullopt for a name that does not parse.
std::optional<TempOwner> owner_of(std::string_view name) {
  if (!is_temp_name(name)) return std::nullopt;
  name.remove_prefix(temp_prefix.size());
  const auto pid_end = name.find('.');
  if (pid_end == std::string_view::npos) return std::nullopt;
  TempOwner owner;
  const auto [ptr, ec] = std::from_chars(name.data(), name.data() + pid_end, owner.pid);
  if (ec != std::errc() || ptr != name.data() + pid_end) return std::nullopt;
  const auto counter_end = name.find('.', pid_end + 1);
  if (counter_end == std::string_view::npos) return std::nullopt;
  owner.host = std::string(name.substr(counter_end + 1));
  return owner;
}

bool process_runs(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

}  // namespace

bool is_temp_name(std::string_view name) {
  return name.size() > temp_prefix.size() && name.substr(0, temp_prefix.size()) == temp_prefix;
}

std::filesystem::path make_temp_dir(const std::filesystem::path& version_dir) {
  static std::atomic<unsigned long> counter{0};
  static const std::string host = host_name();
  for (;;) {
    auto path = version_dir / (std::string(temp_prefix) + std::to_string(::getpid()) + "." +
                               std::to_string(counter++) + "." + host);
    if (::mkdir(path.c_str(), 0777) == 0) return path;
    // EEXIST: a leftover of an earlier process that had our pid; take the next number.
    if (errno != EEXIST) {
      throw_errno("cannot create a folder in", version_dir, errno,
                  "check free space and permissions of the cache");
    }
  }
}

bool is_stale_temp(const std::filesystem::path& temp_dir) {
  const auto owner = owner_of(temp_dir.filename().string());
  struct stat info {};
  if (::lstat(temp_dir.c_str(), &info) != 0) return false;  // gone already
  const auto age = std::chrono::system_clock::now() - modification_time(info);
  if (age > foreign_temp_lifetime) return true;
  if (!owner) return false;
  static const std::string host = host_name();
  return owner->host == host && owner->pid != ::getpid() && !process_runs(owner->pid);
}

void remove_tree(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    throw_errno("cannot remove", dir, error.value(), "check the cache's permissions");
  }
}

bool remove_entry(const std::filesystem::path& entry_dir) {
  const auto trash = make_temp_dir(entry_dir.parent_path());
  // rename() replaces an empty folder: the fresh temporary one is swapped for the entry.
  if (::rename(entry_dir.c_str(), trash.c_str()) != 0) {
    const int error_number = errno;
    ::rmdir(trash.c_str());
    if (error_number == ENOENT) return false;
    throw_errno("cannot remove", entry_dir, error_number, "check the cache's permissions");
  }
  remove_tree(trash);
  return true;
}

std::size_t remove_stale_temps(const std::filesystem::path& dir,
                               const std::vector<DirItem>& items) {
  std::size_t removed = 0;
  for (const auto& item : items) {
    if (!item.is_dir || !is_temp_name(item.name)) continue;
    const auto path = dir / item.name;
    if (is_stale_temp(path)) {
      remove_tree(path);
      removed++;
    }
  }
  return removed;
}

std::size_t remove_stale_temps(const std::filesystem::path& dir) {
  const auto items = list_directory(dir);
  return items ? remove_stale_temps(dir, *items) : 0;
}

}  // namespace trn::cache::detail
