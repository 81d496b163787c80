#include "trn/cache/entry.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cache_tree.hpp"
#include "trn/cache/scan.hpp"
#include "trn/cache/summary.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {
namespace {

using test::make_done;
using test::make_entry;
using test::TempDir;

TEST(Classify, NeffAndDoneIsDone) {
  EXPECT_EQ(classify({"model.hlo_module.pb", "compile_flags.json", "model.neff", "model.done"}),
            EntryState::kDone);
}

TEST(Classify, LogWithoutNeffIsFailed) {
  EXPECT_EQ(classify({"model.hlo_module.pb", "compile_flags.json", "model.log"}),
            EntryState::kFailed);
}

TEST(Classify, AnyLockIsLocked) {
  EXPECT_EQ(classify({"model.hlo_module.pb", "model.hlo_module.pb.lock"}), EntryState::kLocked);
  EXPECT_EQ(classify({"model.neff", "model.done", "x.lock"}), EntryState::kLocked);
  EXPECT_EQ(classify({"model.log", "model.neff.lock"}), EntryState::kLocked);
}

TEST(Classify, HloAloneIsEmpty) {
  EXPECT_EQ(classify({"model.hlo_module.pb"}), EntryState::kEmpty);
  EXPECT_EQ(classify({"model.hlo_module.pb", "compile_flags.json"}), EntryState::kEmpty);
}

TEST(Classify, NeffWithoutDoneIsNotDone) {
  // A compile killed while writing its neff: must never be taken for a usable entry.
  EXPECT_EQ(classify({"model.hlo_module.pb", "model.neff"}), EntryState::kEmpty);
  EXPECT_EQ(classify({"model.hlo_module.pb", "model.neff", "model.log"}), EntryState::kEmpty);
}

TEST(Classify, ALockNamedOnlyLockIsNotOne) {
  EXPECT_EQ(classify({".lock"}), EntryState::kEmpty);
  EXPECT_EQ(classify({"model.lockfile"}), EntryState::kEmpty);
}

TEST(ReadEntry, SizesVersionAndState) {
  TempDir tmp;
  const auto dir = make_done(tmp.path(), "MODULE_1+abc", std::string(1000, 'n'));
  const auto entry = read_entry(dir);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->state, EntryState::kDone);
  EXPECT_EQ(entry->module, "MODULE_1+abc");
  EXPECT_EQ(entry->compiler_version, test::version);
  EXPECT_EQ(entry->neff_bytes, 1000U);
  EXPECT_EQ(entry->bytes, 1000U + std::string("model.hlo_module.pb").size() +
                              std::string("compile_flags.json").size() +
                              std::string("model.done").size());
  EXPECT_GT(entry->last_use, std::chrono::system_clock::now() - std::chrono::minutes(5));
}

TEST(ReadEntry, LastUseIsTheNewestFileTime) {
  TempDir tmp;
  const auto dir = make_done(tmp.path(), "MODULE_1+abc");
  test::age_files(dir, std::chrono::hours(48));
  auto entry = read_entry(dir);
  ASSERT_TRUE(entry.has_value());
  const auto two_days_ago = std::chrono::system_clock::now() - std::chrono::hours(48);
  EXPECT_LT(entry->last_use, two_days_ago + std::chrono::minutes(1));
  test::write_file(dir / "model.neff", "NEFF");  // used (rewritten) now
  entry = read_entry(dir);
  EXPECT_GT(entry->last_use, std::chrono::system_clock::now() - std::chrono::minutes(1));
}

TEST(ReadEntry, MissingFolderIsNullopt) {
  TempDir tmp;
  EXPECT_FALSE(read_entry(tmp.path() / "neuronxcc-1" / "MODULE_gone+x").has_value());
}

TEST(Scan, FindsEveryStateAndIgnoresWhatIsNotAnEntry) {
  TempDir tmp;
  const auto& root = tmp.path();
  make_done(root, "MODULE_1+a");
  make_entry(root, "MODULE_2+a", {"model.hlo_module.pb", "model.log"});
  make_entry(root, "MODULE_3+a", {"model.hlo_module.pb", "model.hlo_module.pb.lock"});
  make_entry(root, "MODULE_4+a", {"model.hlo_module.pb"});
  make_done(root, "MODULE_5+b", "NEFF", "2.15.0.0+aaaa");
  // Not entries: a temporary folder of a copy, manifests, stray files, a non-MODULE folder.
  make_done(root, ".trn-tmp.1.0.host", "NEFF");
  test::write_file(root / "trn-manifests" / "0123.json", "{}");
  test::write_file(root / "neuronxcc-" / "MODULE_6+a" / "model.neff", "x");
  test::write_file(root / ("neuronxcc-" + std::string(test::version)) / "README", "x");
  std::filesystem::create_directories(root / ("neuronxcc-" + std::string(test::version)) / "tmp");

  const auto entries = scan(root);
  std::vector<std::string> seen;
  for (const auto& e : entries) {
    seen.push_back(e.compiler_version + "/" + e.module + "=" + std::string(to_string(e.state)));
  }
  EXPECT_THAT(seen, ::testing::ElementsAre(std::string(test::version) + "/MODULE_1+a=done",
                                           std::string(test::version) + "/MODULE_2+a=failed",
                                           std::string(test::version) + "/MODULE_3+a=locked",
                                           std::string(test::version) + "/MODULE_4+a=empty",
                                           "2.15.0.0+aaaa/MODULE_5+b=done"));
  EXPECT_EQ(scan(root, std::string("2.15.0.0+aaaa")).size(), 1U);
}

TEST(Scan, MissingRootIsAnErrorNamingIt) {
  TempDir tmp;
  try {
    scan(tmp.path() / "nope");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr((tmp.path() / "nope").string()));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("no such folder"));
  }
}

TEST(Summary, CountsAndBytesPerState) {
  TempDir tmp;
  make_done(tmp.path(), "MODULE_1+a", std::string(100, 'x'));
  make_done(tmp.path(), "MODULE_2+a", std::string(200, 'x'));
  make_entry(tmp.path(), "MODULE_3+a", {"model.log"});
  const auto summary = summarize(scan(tmp.path()));
  EXPECT_EQ(summary.done.entries, 2U);
  EXPECT_EQ(summary.failed.entries, 1U);
  EXPECT_EQ(summary.failed.bytes, std::string("model.log").size());
  EXPECT_EQ(summary.locked.entries, 0U);
  EXPECT_EQ(summary.total().entries, 3U);
  EXPECT_EQ(summary.done.bytes, 300U + 2 * (19 + 18 + 10));
  const auto json = to_json(summary, tmp.path());
  EXPECT_EQ(json["done"]["entries"], 2);
  EXPECT_EQ(json["failed"]["entries"], 1);
  EXPECT_EQ(json["compiler_versions"][0], test::version);
}

}  // namespace
}  // namespace trn::cache
