#include "trn/cache/neff_transfer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cache_tree.hpp"
#include "trn/cache/neff_layout.hpp"
#include "trn/common/error.hpp"

// TorchNeuron's NEFF cache (docs/hardware.md#torchneuron-cache): <root>/ab/cd/abcd....neff.
namespace trn::cache {
namespace {

using test::dead_pid;
using test::read_file;
using test::TempDir;
using test::this_host;
using test::write_file;

const std::string key_a = "ab12cd34ef56ab12cd34ef56ab12cd34";
const std::string key_b = "0f0e0d0c0b0a09080706050403020100";

// A NEFF of `content` at the key's sharded path.
std::filesystem::path make_neff(const std::filesystem::path& root, const std::string& key,
                                const std::string& content) {
  auto path = root / neff_relative_path(key);
  write_file(path, content);
  return path;
}

struct Tiers {
  TempDir shared_dir;
  TempDir local_dir;
  std::filesystem::path shared() const { return shared_neff_root(shared_dir.path()); }
  std::filesystem::path local() const { return local_dir.path() / "neff_cache"; }
};

TEST(NeffLayout, RootIsTheVariableElseTorchNeuronsDefault) {
  EXPECT_EQ(neff_cache_root("/fsx/neff"), "/fsx/neff");
  EXPECT_EQ(neff_cache_root(""), "/tmp/neff_cache");
  EXPECT_EQ(neff_cache_root(std::nullopt), "/tmp/neff_cache");
  EXPECT_EQ(shared_neff_root("/fsx/cache"), "/fsx/cache/torchneuron-neff");
}

TEST(NeffLayout, KeyShardsIntoTwoFolderLevels) {
  EXPECT_EQ(neff_relative_path(key_a), std::filesystem::path("ab/12") / (key_a + ".neff"));
  EXPECT_TRUE(is_neff_key("abcd"));
  EXPECT_FALSE(is_neff_key("abc"));
  EXPECT_FALSE(is_neff_key("ABCD"));
  EXPECT_FALSE(is_neff_key("ab/cd"));
  EXPECT_THROW(neff_relative_path("../x"), Error);
}

TEST(NeffLayout, ScanTakesWholeNeffsAtTheirKeysPathOnly) {
  TempDir dir;
  const auto root = dir.path() / "neff_cache";
  make_neff(root, key_a, "neff a");
  make_neff(root, key_b, "neff b!");
  write_file(root / "ab" / "12" / ".tmp.Xy12Zq", "half a neff");      // TorchNeuron's temp file
  write_file(root / "ab" / "12" / (key_b + ".neff"), "wrong shard");  // not at its key's path
  write_file(root / "ab" / "12" / "notes.txt", "x");
  write_file(root / "zz" / "12" / "zz12.neff", "not hex");
  write_file(root / "locks" / (key_a + ".lock"), "");
  const auto entries = scan_neffs(root);
  ASSERT_TRUE(entries.has_value());
  ASSERT_EQ(entries->size(), 2U);
  EXPECT_EQ((*entries)[0].key, key_b);
  EXPECT_EQ((*entries)[0].bytes, 7U);
  EXPECT_EQ((*entries)[1].key, key_a);
  EXPECT_EQ((*entries)[1].bytes, 6U);
  EXPECT_FALSE(scan_neffs(dir.path() / "missing").has_value());
}

TEST(PullNeffs, CopiesWhatTheLocalTierLacksAtTheSamePath) {
  Tiers t;
  make_neff(t.shared(), key_a, "neff a");
  make_neff(t.shared(), key_b, "neff b");
  make_neff(t.local(), key_b, "neff b");
  const auto report = pull_neffs(t.shared(), t.local());
  EXPECT_EQ(report.copied, 1U);
  EXPECT_EQ(report.copied_bytes, 6U);
  EXPECT_EQ(report.present, 1U);
  EXPECT_EQ(report.replaced, 0U);
  EXPECT_EQ(read_file(t.local() / neff_relative_path(key_a)), "neff a");
  // Nothing but the NEFF is left in the shard folder: the staging folder is gone.
  std::vector<std::string> names;
  for (const auto& item : std::filesystem::directory_iterator(t.local() / "ab" / "12"))
    names.push_back(item.path().filename().string());
  EXPECT_THAT(names, testing::ElementsAre(key_a + ".neff"));
}

TEST(PullNeffs, ReplacesALocalNeffOfAnotherSize) {
  Tiers t;
  make_neff(t.shared(), key_a, "the shared neff");
  make_neff(t.local(), key_a, "short");
  const auto report = pull_neffs(t.shared(), t.local());
  EXPECT_EQ(report.copied, 1U);
  EXPECT_EQ(report.replaced, 1U);
  EXPECT_EQ(read_file(t.local() / neff_relative_path(key_a)), "the shared neff");
}

TEST(PushNeffs, NeverReplacesASharedNeff) {
  Tiers t;
  make_neff(t.local(), key_a, "local neff, other size");
  make_neff(t.local(), key_b, "neff b");
  make_neff(t.shared(), key_a, "shared neff");
  const auto report = push_neffs(t.local(), t.shared());
  EXPECT_EQ(report.copied, 1U);
  EXPECT_EQ(report.present, 1U);
  EXPECT_EQ(read_file(t.shared() / neff_relative_path(key_a)), "shared neff");
  EXPECT_EQ(read_file(t.shared() / neff_relative_path(key_b)), "neff b");
  // A second push finds every NEFF present.
  const auto again = push_neffs(t.local(), t.shared());
  EXPECT_EQ(again.copied, 0U);
  EXPECT_EQ(again.present, 2U);
}

TEST(PullNeffs, MissingSourceIsReportedNotThrown) {
  Tiers t;
  const auto report = pull_neffs(t.shared(), t.local());
  EXPECT_FALSE(report.source_exists);
  EXPECT_EQ(report.copied, 0U);
}

TEST(PullNeffs, SameFolderBothWaysIsAnError) {
  Tiers t;
  make_neff(t.local(), key_a, "neff a");
  EXPECT_THROW(pull_neffs(t.local(), t.local()), Error);
}

TEST(PullNeffs, RemovesAKilledCopysStagingFolder) {
  Tiers t;
  make_neff(t.shared(), key_a, "neff a");
  const auto shard = t.local() / "ab" / "12";
  const auto dead = shard / (".trn-tmp." + std::to_string(dead_pid()) + ".0." + this_host());
  write_file(dead / (key_a + ".neff"), "half");
  const auto report = pull_neffs(t.shared(), t.local());
  EXPECT_EQ(report.stale_temps_removed, 1U);
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_EQ(read_file(t.local() / neff_relative_path(key_a)), "neff a");
}

TEST(PullNeffs, ManyNeffsOnSeveralThreadsLandWhole) {
  Tiers t;
  for (int i = 0; i < 40; ++i) {
    char key[33];
    std::snprintf(key, sizeof key, "%08x%024x", i * 2654435761U, i);
    make_neff(t.shared(), key, std::string(100 + i, 'n'));
  }
  const auto report = pull_neffs(t.shared(), t.local(), {.compiler_version = {}, .jobs = 8});
  EXPECT_EQ(report.copied, 40U);
  const auto local = scan_neffs(t.local());
  const auto shared = scan_neffs(t.shared());
  ASSERT_TRUE(local && shared);
  ASSERT_EQ(local->size(), shared->size());
  for (std::size_t i = 0; i < local->size(); ++i) {
    EXPECT_EQ((*local)[i].key, (*shared)[i].key);
    EXPECT_EQ((*local)[i].bytes, (*shared)[i].bytes);
  }
}

}  // namespace
}  // namespace trn::cache
