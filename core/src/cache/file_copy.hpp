#pragma once

#include <cstdint>
#include <filesystem>

namespace trn::cache::detail {

enum class CopyOutcome { kCopied, kSourceVanished };

// Copies one regular file's bytes and permission bits to a new file `to` (which must not
// exist), in the kernel (copy_file_range, falling back to read/write across file systems that
// refuse it). A source that disappears is reported, not thrown; any other failure throws
// trn::Error naming the file.
CopyOutcome copy_regular_file(const std::filesystem::path& from, const std::filesystem::path& to,
                              std::uintmax_t* bytes_copied);

}  // namespace trn::cache::detail
