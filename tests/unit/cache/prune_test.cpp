#include "trn/cache/prune.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cache_tree.hpp"
#include "trn/cache/scan.hpp"

namespace trn::cache {
namespace {

using std::chrono::hours;
using test::make_done;
using test::make_entry;
using test::TempDir;

std::vector<std::string> modules(const std::vector<Entry>& entries) {
  std::vector<std::string> names;
  for (const auto& e : entries) names.push_back(e.module);
  return names;
}

// Five entries of 1,000-byte neffs, used 5, 4, 3, 2 and 1 days ago (MODULE_5 oldest).
void make_aged_cache(const std::filesystem::path& root) {
  for (int days = 1; days <= 5; ++days) {
    const auto dir =
        make_done(root, "MODULE_" + std::to_string(days) + "+a", std::string(1000, 'x'));
    test::age_files(dir, hours(24 * days));
  }
}

TEST(Prune, MaxSizeRemovesLeastRecentlyUsedFirst) {
  TempDir tmp;
  make_aged_cache(tmp.path());
  const auto entry_bytes = scan(tmp.path()).front().bytes;
  PruneOptions options;
  options.max_size = 3 * entry_bytes;
  const auto report = prune(tmp.path(), options);
  EXPECT_THAT(modules(report.removed), ::testing::ElementsAre("MODULE_5+a", "MODULE_4+a"));
  EXPECT_EQ(report.removed_bytes, 2 * entry_bytes);
  EXPECT_EQ(report.remaining_entries, 3U);
  EXPECT_EQ(report.remaining_bytes, 3 * entry_bytes);
  EXPECT_THAT(modules(scan(tmp.path())),
              ::testing::ElementsAre("MODULE_1+a", "MODULE_2+a", "MODULE_3+a"));
}

TEST(Prune, ARecentlyReadEntryIsKept) {
  TempDir tmp;
  make_aged_cache(tmp.path());
  // MODULE_5 was the oldest, but a run has just read its neff (atime now).
  const auto neff = test::entry_path(tmp.path(), "MODULE_5+a") / "model.neff";
  timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
  ASSERT_EQ(::utimensat(AT_FDCWD, neff.c_str(), times, 0), 0);
  PruneOptions options;
  options.max_size = 4 * scan(tmp.path()).front().bytes;
  EXPECT_THAT(modules(prune(tmp.path(), options).removed), ::testing::ElementsAre("MODULE_4+a"));
}

TEST(Prune, OlderThan) {
  TempDir tmp;
  make_aged_cache(tmp.path());
  PruneOptions options;
  options.older_than = hours(24 * 3 + 12);
  EXPECT_THAT(modules(prune(tmp.path(), options).removed),
              ::testing::ElementsAre("MODULE_5+a", "MODULE_4+a"));
}

TEST(Prune, FailedOnlyAndNeverLocked) {
  TempDir tmp;
  make_done(tmp.path(), "MODULE_1+a");
  make_entry(tmp.path(), "MODULE_2+a", {"model.hlo_module.pb", "model.log"});
  const auto locked =
      make_entry(tmp.path(), "MODULE_3+a", {"model.log", "model.hlo_module.pb.lock"});
  test::age_files(locked, hours(24 * 30));
  PruneOptions options;
  options.failed = true;
  options.older_than = hours(24);
  options.max_size = 0;
  const auto report = prune(tmp.path(), options);
  // Failed first, then (max-size 0) everything else that is not locked.
  EXPECT_THAT(modules(report.removed), ::testing::ElementsAre("MODULE_2+a", "MODULE_1+a"));
  EXPECT_THAT(modules(scan(tmp.path())), ::testing::ElementsAre("MODULE_3+a"));
}

TEST(Prune, DryRunRemovesNothing) {
  TempDir tmp;
  make_entry(tmp.path(), "MODULE_2+a", {"model.log"});
  PruneOptions options;
  options.failed = true;
  options.dry_run = true;
  EXPECT_EQ(prune(tmp.path(), options).removed.size(), 1U);
  EXPECT_EQ(scan(tmp.path()).size(), 1U);
}

TEST(Prune, NoTemporaryFoldersLeftBehind) {
  TempDir tmp;
  make_aged_cache(tmp.path());
  PruneOptions options;
  options.max_size = 0;
  EXPECT_EQ(prune(tmp.path(), options).removed.size(), 5U);
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path() / ("neuronxcc-" + std::string(test::version))));
}

TEST(SelectForPrune, TiesAreBrokenByPathSoTheOrderIsStable) {
  const auto now = std::chrono::system_clock::now();
  std::vector<Entry> entries(3);
  entries[0].path = "/c/MODULE_b";
  entries[1].path = "/c/MODULE_a";
  entries[2].path = "/c/MODULE_c";
  for (auto& e : entries) {
    e.module = e.path.filename().string();
    e.last_use = now - hours(1);
    e.bytes = 10;
    e.state = EntryState::kDone;
  }
  PruneOptions options;
  options.max_size = 10;
  EXPECT_THAT(modules(select_for_prune(entries, options, now)),
              ::testing::ElementsAre("MODULE_a", "MODULE_b"));
}

}  // namespace
}  // namespace trn::cache
