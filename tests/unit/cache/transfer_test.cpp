#include "trn/cache/transfer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <thread>

#include "cache_tree.hpp"
#include "trn/cache/scan.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {
namespace {

using test::entry_path;
using test::make_done;
using test::make_entry;
using test::read_file;
using test::TempDir;

using test::dead_pid;
using test::this_host;

std::filesystem::path version_dir(const std::filesystem::path& root) {
  return root / ("neuronxcc-" + std::string(test::version));
}

std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& item : std::filesystem::directory_iterator(dir)) {
    names.push_back(item.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

struct Tiers {
  TempDir shared_dir;
  TempDir local_dir;
  std::filesystem::path shared() const { return shared_dir.path() / "cache"; }
  std::filesystem::path local() const { return local_dir.path() / "cache"; }
};

TEST(Pull, CopiesOnlyCompleteEntries) {
  Tiers t;
  make_done(t.shared(), "MODULE_1+a", "neff-one");
  make_done(t.shared(), "MODULE_2+a", "neff-two");
  make_entry(t.shared(), "MODULE_3+a", {"model.hlo_module.pb", "model.log"});
  make_entry(t.shared(), "MODULE_4+a", {"model.hlo_module.pb", "model.hlo_module.pb.lock"});
  make_entry(t.shared(), "MODULE_5+a", {"model.hlo_module.pb"});
  make_entry(t.shared(), "MODULE_6+a", {"model.hlo_module.pb", "model.neff"});  // no model.done

  const auto report = pull(t.shared(), t.local());
  EXPECT_EQ(report.copied, 2U);
  EXPECT_EQ(report.not_complete, 4U);
  EXPECT_EQ(report.present, 0U);
  EXPECT_EQ(report.copied_bytes, 2 * (8 + 19 + 18 + 10U));
  EXPECT_THAT(names_in(version_dir(t.local())), ::testing::ElementsAre("MODULE_1+a", "MODULE_2+a"));
  EXPECT_EQ(read_file(entry_path(t.local(), "MODULE_1+a") / "model.neff"), "neff-one");
  EXPECT_THAT(names_in(entry_path(t.local(), "MODULE_2+a")),
              ::testing::ElementsAre("compile_flags.json", "model.done", "model.hlo_module.pb",
                                     "model.neff"));
  for (const auto& e : scan(t.local())) EXPECT_EQ(e.state, EntryState::kDone) << e.path;
}

// A spread's inbox is moved in: its complete entries are renamed into place (the same inode),
// an entry the local tier already holds stays in the inbox, untouched.
TEST(MoveIn, RenamesEntriesIntoPlaceInsteadOfCopying) {
  TempDir local;
  const auto inbox = local.path() / ".inbox";
  const auto moved = make_done(inbox, "MODULE_1+aa");
  make_done(inbox, "MODULE_2+aa");
  make_done(local.path(), "MODULE_2+aa");
  make_entry(inbox, "MODULE_3+aa", {"model.hlo_module.pb"});  // cut off: not complete
  struct stat before {};
  ASSERT_EQ(::stat((moved / "model.neff").c_str(), &before), 0);
  const auto report = move_in(inbox, local.path());
  EXPECT_EQ(report.copied, 1u);
  EXPECT_EQ(report.present, 1u);
  EXPECT_EQ(report.not_complete, 1u);
  struct stat after {};
  ASSERT_EQ(::stat((entry_path(local.path(), "MODULE_1+aa") / "model.neff").c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_FALSE(std::filesystem::exists(moved));
  EXPECT_TRUE(std::filesystem::exists(entry_path(inbox, "MODULE_2+aa")));
  EXPECT_FALSE(std::filesystem::exists(entry_path(local.path(), "MODULE_3+aa")));
}

TEST(Pull, KeepsPermissionBits) {
  Tiers t;
  const auto dir = make_done(t.shared(), "MODULE_1+a");
  std::filesystem::permissions(
      dir / "model.neff", std::filesystem::perms::owner_read | std::filesystem::perms::group_read);
  pull(t.shared(), t.local());
  EXPECT_EQ(
      std::filesystem::status(entry_path(t.local(), "MODULE_1+a") / "model.neff").permissions(),
      std::filesystem::perms::owner_read | std::filesystem::perms::group_read);
}

TEST(Pull, WarmPullComparesPresenceAndNeffSizeOnly) {
  Tiers t;
  make_done(t.shared(), "MODULE_1+a", "AAAA");
  make_done(t.shared(), "MODULE_2+a", "BBBB");
  ASSERT_EQ(pull(t.shared(), t.local()).copied, 2U);

  // Same size, other bytes: a warm pull reads no content, so it keeps the local copy.
  test::write_file(entry_path(t.shared(), "MODULE_1+a") / "model.neff", "CCCC");
  // Another size: the shared neff differs; the local copy is replaced.
  test::write_file(entry_path(t.shared(), "MODULE_2+a") / "model.neff", "DDDDDD");

  const auto report = pull(t.shared(), t.local());
  EXPECT_EQ(report.present, 1U);
  EXPECT_EQ(report.copied, 1U);
  EXPECT_EQ(report.replaced, 1U);
  EXPECT_EQ(read_file(entry_path(t.local(), "MODULE_1+a") / "model.neff"), "AAAA");
  EXPECT_EQ(read_file(entry_path(t.local(), "MODULE_2+a") / "model.neff"), "DDDDDD");

  const auto warm = pull(t.shared(), t.local());
  EXPECT_EQ(warm.copied, 0U);
  EXPECT_EQ(warm.present, 2U);
  EXPECT_EQ(warm.present_bytes, warm.skipped_bytes());
}

TEST(Pull, ReplacesAnIncompleteLocalEntryButNeverALockedOne) {
  Tiers t;
  make_done(t.shared(), "MODULE_1+a", "shared");
  make_done(t.shared(), "MODULE_2+a", "shared");
  make_done(t.shared(), "MODULE_3+a", "shared");
  make_entry(t.local(), "MODULE_1+a", {"model.hlo_module.pb"});               // collected only
  make_entry(t.local(), "MODULE_2+a", {"model.hlo_module.pb", "model.log"});  // failed here
  make_entry(t.local(), "MODULE_3+a", {"model.hlo_module.pb", "model.hlo_module.pb.lock"});

  const auto report = pull(t.shared(), t.local());
  EXPECT_EQ(report.copied, 2U);
  EXPECT_EQ(report.replaced, 2U);
  EXPECT_EQ(report.busy, 1U);
  EXPECT_EQ(read_file(entry_path(t.local(), "MODULE_1+a") / "model.neff"), "shared");
  EXPECT_FALSE(std::filesystem::exists(entry_path(t.local(), "MODULE_2+a") / "model.log"));
  EXPECT_TRUE(
      std::filesystem::exists(entry_path(t.local(), "MODULE_3+a") / "model.hlo_module.pb.lock"));
  EXPECT_FALSE(std::filesystem::exists(entry_path(t.local(), "MODULE_3+a") / "model.neff"));
  EXPECT_THAT(names_in(version_dir(t.local())),
              ::testing::ElementsAre("MODULE_1+a", "MODULE_2+a", "MODULE_3+a"));
}

TEST(Pull, OnlyTheNamedCompilerVersion) {
  Tiers t;
  make_done(t.shared(), "MODULE_1+a");
  make_done(t.shared(), "MODULE_2+a", "NEFF", "2.99.0.0+ffff");
  const auto report = pull(t.shared(), t.local(), {std::string("2.99.0.0+ffff")});
  EXPECT_EQ(report.copied, 1U);
  EXPECT_TRUE(std::filesystem::exists(entry_path(t.local(), "MODULE_2+a", "2.99.0.0+ffff")));
  EXPECT_FALSE(std::filesystem::exists(version_dir(t.local())));
}

TEST(Pull, MissingSourceIsReportedNotThrown) {
  Tiers t;
  const auto report = pull(t.shared(), t.local());
  EXPECT_FALSE(report.source_exists);
  EXPECT_EQ(report.copied, 0U);
}

TEST(Pull, SameFolderBothWaysIsAnError) {
  Tiers t;
  make_done(t.shared(), "MODULE_1+a");
  EXPECT_THROW(pull(t.shared(), t.shared()), Error);
}

TEST(Pull, RemovesLeftoversOfKilledCopiesOnly) {
  Tiers t;
  make_done(t.shared(), "MODULE_1+a");
  const auto dir = version_dir(t.local());
  const auto host = this_host();
  // A killed copy on this host: its process is gone.
  const auto dead = dir / (".trn-tmp." + std::to_string(dead_pid()) + ".0." + host);
  test::write_file(dead / "model.neff", "half");
  // A copy in progress on this host (pid 1 always runs).
  const auto running = dir / (".trn-tmp.1.0." + host);
  test::write_file(running / "model.neff", "half");
  // A copy on another node: recent ones may be in progress, day-old ones are leftovers.
  const auto foreign_recent = dir / ".trn-tmp.4242.0.some-other-node";
  test::write_file(foreign_recent / "model.neff", "half");
  const auto foreign_old = dir / ".trn-tmp.4243.0.some-other-node";
  test::write_file(foreign_old / "model.neff", "half");
  test::age_files(foreign_old, std::chrono::hours(25));

  const auto report = pull(t.shared(), t.local());
  EXPECT_EQ(report.stale_temps_removed, 2U);
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_FALSE(std::filesystem::exists(foreign_old));
  EXPECT_TRUE(std::filesystem::exists(running));
  EXPECT_TRUE(std::filesystem::exists(foreign_recent));
  EXPECT_EQ(report.copied, 1U);
  // The leftovers were never entries.
  for (const auto& e : scan(t.local())) EXPECT_EQ(e.module, "MODULE_1+a");
}

// Starts a pull in a child process and SIGKILLs it as soon as one entry is in place and the
// next copy is in flight (a temporary folder exists). False when the pull finished first.
bool kill_pull_mid_copy(const std::filesystem::path& shared, const std::filesystem::path& local) {
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      pull(shared, local);
    } catch (...) {
    }
    ::_exit(0);
  }
  const auto dir = version_dir(local);
  for (;;) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) return false;
    std::error_code ec;
    std::size_t modules = 0;
    bool temp = false;
    for (const auto& item : std::filesystem::directory_iterator(dir, ec)) {
      const auto name = item.path().filename().string();
      modules += name.rfind("MODULE_", 0) == 0 ? 1 : 0;
      temp = temp || name.rfind(".trn-tmp.", 0) == 0;
    }
    if (temp && modules >= 1) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      return WIFSIGNALED(status);
    }
  }
}

// The real thing: a pull killed (SIGKILL) in the middle of copying. Whatever moment the kill
// hits, every entry visible in the local tier is complete and equal to the shared one, and
// the next pull cleans up and finishes the job.
TEST(Pull, KilledMidCopyLeavesNothingHalfWritten) {
  Tiers t;
  constexpr int entries = 8;
  const std::string big(8 << 20, 'n');  // 8 MiB neffs: each copy takes a few ms
  for (int i = 0; i < entries; ++i) {
    make_done(t.shared(), "MODULE_" + std::to_string(i) + "+a", big + std::to_string(i));
  }
  // On a loaded machine the pull may finish before this process looks: then try again.
  bool killed = false;
  for (int attempt = 0; attempt < 5 && !killed; ++attempt) {
    std::filesystem::remove_all(t.local());
    std::filesystem::create_directories(version_dir(t.local()));
    killed = kill_pull_mid_copy(t.shared(), t.local());
  }
  ASSERT_TRUE(killed) << "every pull finished before it could be killed";

  std::size_t leftovers = 0;
  for (const auto& name : names_in(version_dir(t.local()))) {
    leftovers += name.rfind(".trn-tmp.", 0) == 0 ? 1 : 0;
  }
  const auto local_entries = scan(t.local());
  EXPECT_LT(local_entries.size(), static_cast<std::size_t>(entries));
  for (const auto& e : local_entries) {
    EXPECT_EQ(e.state, EntryState::kDone) << e.path;
    EXPECT_EQ(read_file(e.path / "model.neff"),
              read_file(entry_path(t.shared(), e.module) / "model.neff"))
        << e.path;
  }

  const auto report = pull(t.shared(), t.local());
  EXPECT_EQ(report.stale_temps_removed, leftovers);
  EXPECT_EQ(report.copied + report.present, static_cast<std::size_t>(entries));
  for (const auto& name : names_in(version_dir(t.local()))) {
    EXPECT_EQ(name.rfind("MODULE_", 0), 0U) << name;
  }
  for (int i = 0; i < entries; ++i) {
    const auto module = "MODULE_" + std::to_string(i) + "+a";
    EXPECT_EQ(read_file(entry_path(t.local(), module) / "model.neff"), big + std::to_string(i));
  }
}

TEST(Push, NeverOverwritesACompleteSharedEntry) {
  Tiers t;
  make_done(t.local(), "MODULE_1+a", "local-version");
  make_done(t.shared(), "MODULE_1+a", "shared");
  make_done(t.local(), "MODULE_2+a", "local");
  make_entry(t.shared(), "MODULE_2+a", {"model.hlo_module.pb", "model.log"});
  make_done(t.local(), "MODULE_3+a", "local");
  make_entry(t.local(), "MODULE_4+a", {"model.hlo_module.pb", "model.log"});

  const auto report = push(t.local(), t.shared());
  EXPECT_EQ(report.present, 1U);
  EXPECT_EQ(report.copied, 2U);
  EXPECT_EQ(report.replaced, 1U);
  EXPECT_EQ(report.not_complete, 1U);
  EXPECT_EQ(read_file(entry_path(t.shared(), "MODULE_1+a") / "model.neff"), "shared");
  EXPECT_EQ(read_file(entry_path(t.shared(), "MODULE_2+a") / "model.neff"), "local");
  EXPECT_FALSE(std::filesystem::exists(entry_path(t.shared(), "MODULE_2+a") / "model.log"));
  EXPECT_EQ(read_file(entry_path(t.shared(), "MODULE_3+a") / "model.neff"), "local");
  EXPECT_FALSE(std::filesystem::exists(entry_path(t.shared(), "MODULE_4+a")));
}

// Every node pushes its new entries at the end of a compile: two pushes of the same entries
// at once install each exactly once, whole, and the other side counts it as present.
TEST(Push, ConcurrentPushesInstallEachEntryOnce) {
  TempDir a;
  TempDir b;
  TempDir shared;
  constexpr int entries = 40;
  for (int i = 0; i < entries; ++i) {
    const auto module = "MODULE_" + std::to_string(i) + "+a";
    make_done(a.path(), module, std::string(64 << 10, 'a'));
    make_done(b.path(), module, std::string(64 << 10, 'b'));
  }
  TransferReport from_a;
  TransferReport from_b;
  std::thread first([&] { from_a = push(a.path(), shared.path()); });
  std::thread second([&] { from_b = push(b.path(), shared.path()); });
  first.join();
  second.join();
  EXPECT_EQ(from_a.copied + from_b.copied, static_cast<std::size_t>(entries));
  EXPECT_EQ(from_a.present + from_b.present, static_cast<std::size_t>(entries));
  for (const auto& e : scan(shared.path())) {
    EXPECT_EQ(e.state, EntryState::kDone);
    const auto neff = read_file(e.path / "model.neff");
    EXPECT_TRUE(neff == std::string(64 << 10, 'a') || neff == std::string(64 << 10, 'b'));
  }
  EXPECT_EQ(scan(shared.path()).size(), static_cast<std::size_t>(entries));
  for (const auto& name : names_in(version_dir(shared.path()))) {
    EXPECT_EQ(name.rfind("MODULE_", 0), 0U) << name;
  }
}

TEST(Push, CreatesTheSharedRoot) {
  Tiers t;
  make_done(t.local(), "MODULE_1+a");
  EXPECT_EQ(push(t.local(), t.shared()).copied, 1U);
  EXPECT_EQ(scan(t.shared()).size(), 1U);
}

TEST(Transfer, JsonReport) {
  Tiers t;
  make_done(t.shared(), "MODULE_1+a", "abc");
  make_entry(t.shared(), "MODULE_2+a", {"model.log"});
  const auto json = to_json(pull(t.shared(), t.local()));
  EXPECT_EQ(json["copied"]["entries"], 1);
  EXPECT_EQ(json["not_complete"]["entries"], 1);
  EXPECT_EQ(json["skipped"]["entries"], 1);
  EXPECT_EQ(json["source_exists"], true);
}

// A tree of every kind of entry for the parallel tests: complete ones, incomplete ones, ones the
// destination already holds, and ones whose destination is a file where the folder belongs.
struct MixedTree {
  static constexpr int complete = 40;
  static constexpr int incomplete = 10;
  static constexpr int present = 10;
  static constexpr int blocked = 5;
  explicit MixedTree(const std::filesystem::path& shared) {
    for (int i = 0; i < complete + present + blocked; ++i) {
      make_done(shared, module(i), std::string(4096 + static_cast<std::size_t>(i), 'n'));
    }
    for (int i = 0; i < incomplete; ++i) {
      make_entry(shared, "MODULE_9" + std::to_string(i) + "+a",
                 {"model.hlo_module.pb", "model.log"});
    }
  }
  static std::string module(int i) { return "MODULE_" + std::to_string(100 + i) + "+a"; }
  // What the destination holds before the pull.
  static void prepare(const std::filesystem::path& shared, const std::filesystem::path& local) {
    for (int i = complete; i < complete + present; ++i) {
      std::filesystem::create_directories(version_dir(local));
      std::filesystem::copy(entry_path(shared, module(i)), entry_path(local, module(i)));
    }
    for (int i = complete + present; i < complete + present + blocked; ++i) {
      test::write_file(entry_path(local, module(i)), "a file, not a folder");
    }
  }
};

TransferOptions with_jobs(unsigned jobs) {
  TransferOptions options;
  options.jobs = jobs;
  return options;
}

std::vector<std::string> tree_of(const std::filesystem::path& root) {
  std::vector<std::string> files;
  for (const auto& item : std::filesystem::recursive_directory_iterator(root)) {
    files.push_back(std::filesystem::relative(item.path(), root).string() +
                    (item.is_regular_file() ? "=" + read_file(item.path()) : "/"));
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Pull, AnyNumberOfJobsGivesTheSameTreeAndReport) {
  TempDir shared;
  const MixedTree tree(shared.path());
  std::vector<std::vector<std::string>> trees;
  std::vector<nlohmann::json> reports;
  std::vector<std::vector<std::string>> bad;
  for (const unsigned jobs : {1U, 3U, 16U, 64U}) {
    TempDir local;
    MixedTree::prepare(shared.path(), local.path());
    const auto report = pull(shared.path(), local.path(), with_jobs(jobs));
    trees.push_back(tree_of(local.path()));
    reports.push_back(to_json(report));
    bad.emplace_back();
    for (const auto& entry : report.bad) bad.back().push_back(entry.path.filename().string());
    EXPECT_EQ(report.copied, static_cast<std::size_t>(MixedTree::complete)) << jobs << " jobs";
    EXPECT_EQ(report.present, static_cast<std::size_t>(MixedTree::present)) << jobs << " jobs";
    EXPECT_EQ(report.not_complete, static_cast<std::size_t>(MixedTree::incomplete)) << jobs;
  }
  // Entries 100 + complete + present onwards are blocked by a file: listed in path order.
  std::vector<std::string> expected_bad;
  for (int i = MixedTree::complete + MixedTree::present;
       i < MixedTree::complete + MixedTree::present + MixedTree::blocked; ++i) {
    expected_bad.push_back(MixedTree::module(i));
  }
  for (std::size_t run = 0; run < trees.size(); ++run) {
    EXPECT_EQ(trees[run], trees[0]) << "run " << run;
    EXPECT_EQ(reports[run], reports[0]) << "run " << run;
    EXPECT_EQ(bad[run], expected_bad) << "run " << run;
  }
}

TEST(Push, ManyJobsInstallEachEntryWhole) {
  TempDir local;
  TempDir shared;
  const MixedTree tree(local.path());
  const auto report = push(local.path(), shared.path(), with_jobs(16));
  EXPECT_EQ(report.copied, static_cast<std::size_t>(MixedTree::complete + MixedTree::present +
                                                    MixedTree::blocked));
  for (const auto& name : names_in(version_dir(shared.path()))) {
    EXPECT_EQ(name.rfind("MODULE_", 0), 0U) << name;  // no staging folder left behind
  }
  for (const auto& e : scan(shared.path())) {
    EXPECT_EQ(e.state, EntryState::kDone) << e.path;
    EXPECT_EQ(read_file(e.path / "model.neff"),
              read_file(entry_path(local.path(), e.module) / "model.neff"));
  }
}

}  // namespace
}  // namespace trn::cache
