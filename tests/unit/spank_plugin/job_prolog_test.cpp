// slurmd's job prolog (job script context: root, only UID/GID/JOB_ID): the user's node-local
// compile-cache directory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "plugin_test.hpp"

namespace trn::test {
namespace {

using ::testing::HasSubstr;

class JobProlog : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    auto& host = fake_spank::state();
    host.context = S_CTX_JOB_SCRIPT;
    host.uid = 65534;  // nobody
    host.gid = 65534;
    host.job_id = 77;
  }
  std::filesystem::path cache() const { return temp() / "cache"; }
  int prolog() { return plugin().call("job_prolog", {"local_cache=" + cache().string()}); }
};

struct stat stat_of(const std::filesystem::path& path) {
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return st;
}

TEST_F(JobProlog, CreatesTheUsersDirectoryOwnedByThem) {
  ASSERT_EQ(prolog(), 0);
  EXPECT_TRUE(fake_spank::log_lines("error").empty())
      << ::testing::PrintToString(fake_spank::log_lines("error"));
  const struct stat root = stat_of(cache());
  EXPECT_EQ(root.st_uid, 0u);
  EXPECT_EQ(root.st_mode & 07777, 0755u);
  const struct stat mine = stat_of(cache() / "nobody");
  EXPECT_TRUE(S_ISDIR(mine.st_mode));
  EXPECT_EQ(mine.st_uid, 65534u);
  EXPECT_EQ(mine.st_gid, 65534u);
  EXPECT_EQ(mine.st_mode & 07777, 0700u);
  EXPECT_EQ(fake_spank::log_lines("verbose", "spank_trn: job 77: created ").size(), 1u);

  // Again (every job of the user): nothing to do, nothing said.
  fake_spank::state().log.clear();
  ASSERT_EQ(prolog(), 0);
  EXPECT_TRUE(fake_spank::state().log.empty());
}

TEST_F(JobProlog, LocalCacheOffCreatesNothing) {
  ASSERT_EQ(plugin().call("job_prolog", {"local_cache=off"}), 0);
  EXPECT_FALSE(std::filesystem::exists(cache()));
}

TEST_F(JobProlog, APlantedSymlinkIsRefusedWithoutDrainingTheNode) {
  std::filesystem::create_directories(cache());
  std::filesystem::permissions(cache(), std::filesystem::perms(0755));
  std::filesystem::create_directories(temp() / "victim");
  std::filesystem::create_directory_symlink(temp() / "victim", cache() / "nobody");
  EXPECT_EQ(prolog(), 0);  // a failing prolog would drain the node
  const auto errors =
      fake_spank::log_lines("error", "spank_trn: job 77: refusing the compile cache");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("symbolic link"));
  EXPECT_EQ(stat_of(temp() / "victim").st_uid, 0u);  // never chown'ed through the link
}

TEST_F(JobProlog, BadPlugstackArgumentsAreLoggedNotFatal) {
  EXPECT_EQ(plugin().call("job_prolog", {"local_cache=relative"}), 0);
  EXPECT_EQ(fake_spank::log_lines("error", "spank_trn: plugstack.conf argument").size(), 1u);
}

TEST_F(JobProlog, RootJobsKeepRootsDirectory) {
  fake_spank::state().uid = 0;
  fake_spank::state().gid = 0;
  ASSERT_EQ(prolog(), 0);
  EXPECT_EQ(stat_of(cache() / "root").st_uid, 0u);
}

}  // namespace
}  // namespace trn::test
