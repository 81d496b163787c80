#include "trn/cache/cache_stream.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "cache_tree.hpp"
#include "trn/cache/entry.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {
namespace {

using test::entry_path;
using test::make_done;
using test::make_entry;
using test::read_file;
using test::StringSink;
using test::TempDir;

// Hands out at most `piece` bytes per call, as a socket does.
class StringSource : public ByteSource {
 public:
  StringSource(std::string bytes, std::size_t piece) : bytes_(std::move(bytes)), piece_(piece) {}
  std::size_t read_some(char* data, std::size_t size) override {
    const auto n = std::min({size, piece_, bytes_.size() - at_});
    std::copy_n(bytes_.data() + at_, n, data);
    at_ += n;
    return n;
  }

 private:
  std::string bytes_;
  std::size_t piece_;
  std::size_t at_ = 0;
};

// A stream of one file with `path` and `content`, then the end mark.
std::string one_file_stream(const std::string& path, const std::string& content) {
  std::string bytes = "TRNCACHE1F";
  bytes.push_back(static_cast<char>(path.size() >> 8));
  bytes.push_back(static_cast<char>(path.size() & 0xff));
  bytes += path;
  bytes += std::string("\0\0\x01\xa4", 4);  // 0644
  bytes += std::string(7, '\0');
  bytes.push_back(static_cast<char>(content.size()));
  return bytes + content + "Z";
}

std::vector<std::filesystem::path> files_under(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> files;
  for (const auto& item : std::filesystem::recursive_directory_iterator(root)) {
    if (item.is_regular_file()) files.push_back(std::filesystem::relative(item.path(), root));
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(CacheStream, CarriesTheCompleteEntriesWithTheirBytesAndModes) {
  TempDir shared;
  TempDir inbox;
  const auto done = make_done(shared.path(), "MODULE_1+aa", std::string(3'000'000, 'n'));
  ::chmod((done / "model.neff").c_str(), 0640);
  make_done(shared.path(), "MODULE_2+aa");
  make_done(shared.path(), "MODULE_9+aa", "OTHER", "2.15.0.0+abc");
  make_entry(shared.path(), "MODULE_3+aa", {"model.hlo_module.pb", "model.log"});  // failed
  make_entry(shared.path(), "MODULE_4+aa",
             {"model.hlo_module.pb", "model.neff", "model.done", "model.neff.lock"});  // locked

  StringSink sink;
  const auto sent = write_cache_stream(shared.path(), test::version, sink);
  EXPECT_EQ(sent.entries, 2u);
  EXPECT_EQ(sent.files, 8u);

  StringSource source(sink.bytes, 4093);  // odd pieces: headers and contents split anywhere
  const auto got = read_cache_stream(source, inbox.path());
  ASSERT_TRUE(got.complete) << got.problem;
  EXPECT_EQ(got.counts.entries, 2u);
  EXPECT_EQ(got.counts.files, 8u);
  EXPECT_EQ(got.counts.bytes, sent.bytes);
  const auto copy = entry_path(inbox.path(), "MODULE_1+aa");
  EXPECT_EQ(read_file(copy / "model.neff"), std::string(3'000'000, 'n'));
  struct stat info {};
  ASSERT_EQ(::stat((copy / "model.neff").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
  EXPECT_EQ(read_entry(copy)->state, EntryState::kDone);
  EXPECT_EQ(read_entry(entry_path(inbox.path(), "MODULE_2+aa"))->state, EntryState::kDone);
  EXPECT_FALSE(std::filesystem::exists(entry_path(inbox.path(), "MODULE_3+aa")));
  EXPECT_FALSE(std::filesystem::exists(entry_path(inbox.path(), "MODULE_9+aa", "2.15.0.0+abc")));
  EXPECT_FALSE(std::filesystem::exists(entry_path(inbox.path(), "MODULE_4+aa")));
}

// Cut anywhere, a stream leaves no complete entry it did not carry whole, and no partial file
// under its real name.
TEST(CacheStream, ACutStreamLeavesOnlyWholeEntriesComplete) {
  TempDir shared;
  make_done(shared.path(), "MODULE_1+aa", std::string(5000, 'a'));
  make_done(shared.path(), "MODULE_2+aa", std::string(5000, 'b'));
  StringSink sink;
  write_cache_stream(shared.path(), std::nullopt, sink);
  for (std::size_t cut = 0; cut < sink.bytes.size(); cut += 97) {
    TempDir inbox;
    StringSource source(sink.bytes.substr(0, cut), 1000);
    const auto got = read_cache_stream(source, inbox.path());
    ASSERT_FALSE(got.complete) << "cut at " << cut;
    EXPECT_FALSE(got.problem.empty());
    for (const auto* module : {"MODULE_1+aa", "MODULE_2+aa"}) {
      const auto entry = read_entry(entry_path(inbox.path(), module));
      if (!entry || entry->state != EntryState::kDone) continue;
      EXPECT_EQ(read_file(entry_path(inbox.path(), module) / "model.neff"),
                read_file(entry_path(shared.path(), module) / "model.neff"))
          << "cut at " << cut;
    }
    for (const auto& file : files_under(inbox.path())) {
      EXPECT_FALSE(file.string().ends_with(".trn-part")) << file << " cut at " << cut;
    }
  }
}

TEST(CacheStream, RefusesPathsOutsideTheLayout) {
  const std::string version_dir = "neuronxcc-" + std::string(test::version);
  for (const std::string& path : std::vector<std::string>{
           "../../escaped", "/etc/escaped", version_dir + "/../../escaped",
           version_dir + "/MODULE_1+aa/../x", version_dir + "/MODULE_1+aa/model.neff.lock",
           version_dir + "/MODULE_1+aa/sub/model.neff", version_dir + "/notamodule/model.neff",
           "neuronxcc-/MODULE_1+aa/model.neff", version_dir + "/MODULE_1+aa/"}) {
    TempDir top;
    const auto inbox = top.path() / "inbox";
    std::filesystem::create_directories(inbox);
    StringSource source(one_file_stream(path, "x"), 1 << 20);
    const auto got = read_cache_stream(source, inbox);
    EXPECT_FALSE(got.complete) << path;
    EXPECT_NE(got.problem.find("the stream's path " + path), std::string::npos) << got.problem;
    EXPECT_TRUE(files_under(top.path()).empty()) << path;
  }
}

TEST(CacheStream, RefusesAStreamWithoutItsHeader) {
  TempDir inbox;
  StringSource source("HTTP/1.1 200 OK\r\n", 1 << 20);
  const auto got = read_cache_stream(source, inbox.path());
  EXPECT_FALSE(got.complete);
  EXPECT_EQ(got.problem, "the stream does not start with TRNCACHE1");
}

}  // namespace
}  // namespace trn::cache
