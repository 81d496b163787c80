// The user's node-local compile-cache directory, made by slurmstepd as root in init_post_opt:
// the layouts the walk accepts and the ones it refuses (a refusal is a warning the user sees;
// the step goes on without NEURON_COMPILE_CACHE_URL).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "plugin_test.hpp"

namespace trn::test {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class CacheDir : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    set_up_step(1, 0, 1, "localhost");
    fake_spank::state().uid = 65534;  // nobody
    fake_spank::state().gid = 65534;
  }
  // Runs a step with `local_cache`; returns the refusal ("" when accepted, and then the task's
  // NEURON_COMPILE_CACHE_URL is the user's directory).
  std::string step_with(const fs::path& local_cache) {
    fake_spank::state().log.clear();
    const StepRun run = run_step(plugin(), {"fsroot=" + fixture("cpu-only").string(),
                                            "topology_cache=" + (temp() / "t").string(),
                                            "local_cache=" + local_cache.string()});
    EXPECT_EQ(run.task_init[0], 0);
    EXPECT_TRUE(fake_spank::log_lines("error").empty());
    const auto warnings = fake_spank::log_lines("info", "spank_trn: warning: refusing");
    const std::string url = value_of(run.task_env[0], "NEURON_COMPILE_CACHE_URL");
    if (!warnings.empty()) {
      EXPECT_EQ(url, "<unset>");
      return warnings.front();
    }
    EXPECT_EQ(fs::path(url).parent_path(), local_cache);
    return "";
  }
  static uid_t owner(const fs::path& path) {
    struct stat st {};
    ::lstat(path.c_str(), &st);
    return st.st_uid;
  }
  static mode_t mode(const fs::path& path) {
    struct stat st {};
    ::lstat(path.c_str(), &st);
    return st.st_mode & 07777;
  }
};

TEST_F(CacheDir, ACacheRootOwnedByAUserIsRefused) {
  fs::create_directory(temp() / "c");
  ASSERT_EQ(::chown((temp() / "c").c_str(), 65534, 65534), 0);
  EXPECT_THAT(step_with(temp() / "c"), HasSubstr("owned by uid 65534, not root"));
  EXPECT_FALSE(fs::exists(temp() / "c" / "nobody"));
}

TEST_F(CacheDir, AGroupOrWorldWritableCacheRootIsRefused) {
  fs::create_directory(temp() / "c");
  fs::permissions(temp() / "c", fs::perms(01777));
  EXPECT_THAT(step_with(temp() / "c"), HasSubstr("writable by group or others (mode 1777)"));
}

TEST_F(CacheDir, ASymlinkAnywhereOnThePathIsRefused) {
  fs::create_directories(temp() / "real" / "c");
  fs::create_directory_symlink(temp() / "real", temp() / "link");
  EXPECT_THAT(step_with(temp() / "link" / "c"), HasSubstr("symbolic link or not a directory"));
  fs::create_directory_symlink(temp() / "real" / "c", temp() / "c2");
  EXPECT_THAT(step_with(temp() / "c2"), HasSubstr("symbolic link or not a directory"));
}

TEST_F(CacheDir, AnUnstickyWorldWritableParentIsRefusedAStickyOneIsFine) {
  fs::create_directory(temp() / "open");
  fs::permissions(temp() / "open", fs::perms(0777));
  EXPECT_THAT(step_with(temp() / "open" / "c"),
              HasSubstr("writable by others (mode 0777) without the sticky bit"));
  fs::permissions(temp() / "open", fs::perms(01777));  // like /tmp and /var/tmp
  EXPECT_EQ(step_with(temp() / "open" / "c"), "");
  EXPECT_EQ(owner(temp() / "open" / "c" / "nobody"), 65534u);
}

TEST_F(CacheDir, AParentOwnedByAUserIsRefused) {
  fs::create_directory(temp() / "users");
  ASSERT_EQ(::chown((temp() / "users").c_str(), 65534, 65534), 0);
  EXPECT_THAT(step_with(temp() / "users" / "c"),
              HasSubstr("users: it is owned by uid 65534, not root"));
}

TEST_F(CacheDir, AMissingParentIsRefusedNotCreated) {
  EXPECT_THAT(step_with(temp() / "absent" / "c"), HasSubstr("it does not exist"));
  EXPECT_FALSE(fs::exists(temp() / "absent"));
}

TEST_F(CacheDir, TheUsersEntryMustBeTheirDirectory) {
  const fs::path c = temp() / "c";
  fs::create_directory(c);
  fs::permissions(c, fs::perms(0755));
  std::ofstream(c / "nobody") << "not a directory";
  EXPECT_THAT(step_with(c), HasSubstr("symbolic link or not a directory"));
  fs::remove(c / "nobody");

  fs::create_directory(c / "nobody");
  ASSERT_EQ(::chown((c / "nobody").c_str(), 1234, 1234), 0);
  EXPECT_THAT(step_with(c), HasSubstr("owned by uid 1234, not by nobody (uid 65534)"));
  EXPECT_EQ(owner(c / "nobody"), 1234u);
}

TEST_F(CacheDir, AHalfMadeDirectoryIsFinishedAndTheUsersModeIsTheirs) {
  const fs::path c = temp() / "c";
  fs::create_directories(c / "nobody");
  fs::permissions(c, fs::perms(0755));
  fs::permissions(c / "nobody", fs::perms(0755));  // root-owned: left by an interrupted prolog
  EXPECT_EQ(step_with(c), "");
  EXPECT_EQ(owner(c / "nobody"), 65534u);
  EXPECT_EQ(mode(c / "nobody"), 0700u);

  ASSERT_EQ(::chmod((c / "nobody").c_str(), 0750), 0);  // the user opened it to their group
  EXPECT_EQ(step_with(c), "");
  EXPECT_EQ(mode(c / "nobody"), 0750u);
}

TEST_F(CacheDir, AUserWithoutAPasswdEntryGetsTheirUid) {
  fake_spank::state().uid = 3999999;
  EXPECT_EQ(step_with(temp() / "c"), "");
  EXPECT_EQ(owner(temp() / "c" / "3999999"), 3999999u);
}

TEST_F(CacheDir, CreatesTheUsersDirectoryOwnedByThemOnce) {
  const fs::path c = temp() / "cache";
  EXPECT_EQ(step_with(c), "");
  EXPECT_EQ(owner(c), 0u);
  EXPECT_EQ(mode(c), 0755u);
  EXPECT_EQ(owner(c / "nobody"), 65534u);
  struct stat st {};
  ::lstat((c / "nobody").c_str(), &st);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(mode(c / "nobody"), 0700u);
  EXPECT_EQ(step_with(c), "");  // every later step: nothing to do
  EXPECT_EQ(owner(c / "nobody"), 65534u);
}

TEST_F(CacheDir, APlantedSymlinkIsNeverFollowed) {
  const fs::path c = temp() / "cache";
  fs::create_directories(c);
  fs::permissions(c, fs::perms(0755));
  fs::create_directories(temp() / "victim");
  fs::create_directory_symlink(temp() / "victim", c / "nobody");
  EXPECT_THAT(step_with(c), HasSubstr("symbolic link"));
  EXPECT_EQ(owner(temp() / "victim"), 0u);  // never chown'ed through the link
}

TEST_F(CacheDir, RootJobsKeepRootsDirectory) {
  fake_spank::state().uid = 0;
  fake_spank::state().gid = 0;
  EXPECT_EQ(step_with(temp() / "cache"), "");
  EXPECT_EQ(owner(temp() / "cache" / "root"), 0u);
}

}  // namespace
}  // namespace trn::test
