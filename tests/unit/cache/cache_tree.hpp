#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>

#include "temp_dir.hpp"
#include "trn/cache/cache_stream.hpp"

// Tiny compile-cache trees in the real layout (docs/hardware.md#compile-cache), for the cache
// tests.
namespace trn::cache::test {

using trn::test::TempDir;

inline constexpr const char* version = "2.14.213.0+013d129b";

// This machine's host name, as trn-cache's temporary folders record it.
inline std::string this_host() {
  std::array<char, 256> name{};
  ::gethostname(name.data(), name.size() - 1);
  return name.data();
}

// A process id that is surely not running: a child that has exited and been reaped.
inline long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

inline void write_file(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::filesystem::path entry_path(const std::filesystem::path& root,
                                        const std::string& module,
                                        const std::string& compiler = version) {
  return root / ("neuronxcc-" + compiler) / module;
}

// An entry holding the named files; each file's content is its name, model.neff gets `neff`.
inline std::filesystem::path make_entry(const std::filesystem::path& root,
                                        const std::string& module,
                                        std::initializer_list<const char*> files,
                                        const std::string& neff = "NEFF",
                                        const std::string& compiler = version) {
  auto dir = entry_path(root, module, compiler);
  std::filesystem::create_directories(dir);
  for (const char* name : files) {
    write_file(dir / name, std::string(name) == "model.neff" ? neff : std::string(name));
  }
  return dir;
}

inline std::filesystem::path make_done(const std::filesystem::path& root, const std::string& module,
                                       const std::string& neff = "NEFF",
                                       const std::string& compiler = version) {
  return make_entry(root, module,
                    {"model.hlo_module.pb", "compile_flags.json", "model.neff", "model.done"}, neff,
                    compiler);
}

// Sets access and modification time of every file in `dir` to `age` ago.
inline void age_files(const std::filesystem::path& dir, std::chrono::seconds age) {
  const auto when = std::chrono::system_clock::now() - age;
  const auto since_epoch = when.time_since_epoch();
  timespec times[2];
  times[0].tv_sec = std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
  times[0].tv_nsec = 0;
  times[1] = times[0];
  for (const auto& file : std::filesystem::directory_iterator(dir)) {
    ::utimensat(AT_FDCWD, file.path().c_str(), times, AT_SYMLINK_NOFOLLOW);
  }
  ::utimensat(AT_FDCWD, dir.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

// Keeps what a cache stream writes (trn/cache/cache_stream.hpp).
class StringSink : public ByteSink {
 public:
  void write(const char* data, std::size_t size) override { bytes.append(data, size); }
  std::string bytes;
};

}  // namespace trn::cache::test
