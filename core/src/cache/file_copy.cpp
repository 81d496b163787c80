#include "file_copy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "directory.hpp"
#include "trn/common/unique_fd.hpp"

namespace trn::cache::detail {

namespace {

const char* const space_fix = "check free space and permissions of the destination";

void copy_by_read_write(int in, int out, const std::filesystem::path& from,
                        const std::filesystem::path& to, std::uintmax_t* copied) {
  std::array<char, 1 << 16> buffer{};
  for (;;) {
    const ssize_t got = ::read(in, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot read", from, errno, "check the source cache");
    }
    if (got == 0) return;
    for (ssize_t done = 0; done < got;) {
      const ssize_t put = ::write(out, buffer.data() + done, static_cast<size_t>(got - done));
      if (put < 0) {
        if (errno == EINTR) continue;
        throw_errno("cannot write", to, errno, space_fix);
      }
      done += put;
      *copied += static_cast<std::uintmax_t>(put);
    }
  }
}

}  // namespace

CopyOutcome copy_regular_file(const std::filesystem::path& from, const std::filesystem::path& to,
                              std::uintmax_t* bytes_copied) {
  UniqueFd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) {
    if (errno == ENOENT) return CopyOutcome::kSourceVanished;
    throw_errno("cannot open", from, errno, "check the source cache's permissions");
  }
  struct stat info {};
  if (::fstat(in.get(), &info) != 0) throw_errno("cannot inspect", from, errno, "check the file");
  UniqueFd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 0777));
  if (out.get() < 0) throw_errno("cannot create", to, errno, space_fix);

  std::uintmax_t copied = 0;
  bool in_kernel = true;
  while (in_kernel) {
    const ssize_t moved =
        ::copy_file_range(in.get(), nullptr, out.get(), nullptr, std::size_t{1} << 30, 0);
    if (moved > 0) {
      copied += static_cast<std::uintmax_t>(moved);
    } else if (moved == 0) {
      break;
    } else if (errno == EINTR) {
      continue;
    } else if (copied == 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
                               errno == EOPNOTSUPP || errno == EBADF)) {
      in_kernel = false;  // this pair of file systems cannot; copy through user space
    } else {
      throw_errno("cannot copy to", to, errno, space_fix);
    }
  }
  if (!in_kernel) copy_by_read_write(in.get(), out.get(), from, to, &copied);
  if (out.close() != 0) throw_errno("cannot finish writing", to, errno, space_fix);
  if (bytes_copied != nullptr) *bytes_copied += copied;
  return CopyOutcome::kCopied;
}

}  // namespace trn::cache::detail
