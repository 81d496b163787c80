#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

// The byte stream in which a spread sends compile-cache entries from node to node
// (docs/hardware.md#cache-spread): "TRNCACHE1", then per file 'F', the path in the cache
// (u16 length, "neuronxcc-<v>/MODULE_<m>/<file>"), its permission bits (u32), its size (u64) and
// its bytes; 'Z' ends the stream. Numbers are big-endian. Each entry's model.done comes last,
// so an entry cut off by a broken stream is never complete.
namespace trn::cache {

// Where a stream is read from: up to `size` bytes, 0 at its end; throws trn::Error when the
// source fails.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::size_t read_some(char* data, std::size_t size) = 0;
};

// Where a stream is written to; throws trn::Error when the sink fails.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const char* data, std::size_t size) = 0;
};

struct StreamCounts {
  std::size_t entries = 0;  // complete entries (their model.done sent or received)
  std::size_t files = 0;
  std::uintmax_t bytes = 0;  // file contents
};

// Sends the complete entries of the cache at `root` (of one compiler version when set): their
// regular files, never lock files, then the end mark. An entry that vanished or stopped being
// complete since the scan is left out; a file that changes size while it is sent throws
// trn::Error (the stream is then cut, and its readers fall back). A missing root throws.
StreamCounts write_cache_stream(const std::filesystem::path& root,
                                const std::optional<std::string>& compiler_version, ByteSink& sink);

struct StreamReadOutcome {
  bool complete = false;  // the end mark arrived
  std::string problem;    // why not: a cut stream, a malformed one, a file that cannot be written
  StreamCounts counts;
};

// Writes a stream's files under `inbox` (a cache root only this reader uses). A file is written
// under a temporary name and renamed when all its bytes arrived. A path outside the layout (an
// absolute path, "..", a lock file) makes the stream malformed: reading stops there. Never
// throws: what arrived before a problem stays in the inbox, complete entries usable.
StreamReadOutcome read_cache_stream(ByteSource& source, const std::filesystem::path& inbox);

}  // namespace trn::cache
