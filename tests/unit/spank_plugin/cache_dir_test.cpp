// The layouts the per-user cache walk accepts and the ones it refuses (driven through the job
// prolog, which logs the refusal and goes on).
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
    auto& host = fake_spank::state();
    host.context = S_CTX_JOB_SCRIPT;
    host.uid = 65534;
    host.gid = 65534;
    host.job_id = 9;
  }
  // Runs the prolog for `local_cache`; returns the refusal ("" when accepted).
  std::string prolog(const fs::path& local_cache) {
    fake_spank::state().log.clear();
    EXPECT_EQ(plugin().call("job_prolog", {"local_cache=" + local_cache.string()}), 0);
    const auto errors = fake_spank::log_lines("error");
    return errors.empty() ? "" : errors.front();
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
  EXPECT_THAT(prolog(temp() / "c"), HasSubstr("owned by uid 65534, not root"));
  EXPECT_FALSE(fs::exists(temp() / "c" / "nobody"));
}

TEST_F(CacheDir, AGroupOrWorldWritableCacheRootIsRefused) {
  fs::create_directory(temp() / "c");
  fs::permissions(temp() / "c", fs::perms(01777));
  EXPECT_THAT(prolog(temp() / "c"), HasSubstr("writable by group or others (mode 1777)"));
}

TEST_F(CacheDir, ASymlinkAnywhereOnThePathIsRefused) {
  fs::create_directories(temp() / "real" / "c");
  fs::create_directory_symlink(temp() / "real", temp() / "link");
  EXPECT_THAT(prolog(temp() / "link" / "c"), HasSubstr("symbolic link or not a directory"));
  fs::create_directory_symlink(temp() / "real" / "c", temp() / "c2");
  EXPECT_THAT(prolog(temp() / "c2"), HasSubstr("symbolic link or not a directory"));
}

TEST_F(CacheDir, AnUnstickyWorldWritableParentIsRefusedAStickyOneIsFine) {
  fs::create_directory(temp() / "open");
  fs::permissions(temp() / "open", fs::perms(0777));
  EXPECT_THAT(prolog(temp() / "open" / "c"),
              HasSubstr("writable by others (mode 0777) without the sticky bit"));
  fs::permissions(temp() / "open", fs::perms(01777));  // like /tmp and /var/tmp
  EXPECT_EQ(prolog(temp() / "open" / "c"), "");
  EXPECT_EQ(owner(temp() / "open" / "c" / "nobody"), 65534u);
}

TEST_F(CacheDir, AParentOwnedByAUserIsRefused) {
  fs::create_directory(temp() / "users");
  ASSERT_EQ(::chown((temp() / "users").c_str(), 65534, 65534), 0);
  EXPECT_THAT(prolog(temp() / "users" / "c"),
              HasSubstr("users: it is owned by uid 65534, not root"));
}

TEST_F(CacheDir, AMissingParentIsRefusedNotCreated) {
  EXPECT_THAT(prolog(temp() / "absent" / "c"), HasSubstr("it does not exist"));
  EXPECT_FALSE(fs::exists(temp() / "absent"));
}

TEST_F(CacheDir, TheUsersEntryMustBeTheirDirectory) {
  const fs::path c = temp() / "c";
  fs::create_directory(c);
  fs::permissions(c, fs::perms(0755));
  std::ofstream(c / "nobody") << "not a directory";
  EXPECT_THAT(prolog(c), HasSubstr("symbolic link or not a directory"));
  fs::remove(c / "nobody");

  fs::create_directory(c / "nobody");
  ASSERT_EQ(::chown((c / "nobody").c_str(), 1234, 1234), 0);
  EXPECT_THAT(prolog(c), HasSubstr("owned by uid 1234, not by nobody (uid 65534)"));
  EXPECT_EQ(owner(c / "nobody"), 1234u);
}

TEST_F(CacheDir, AHalfMadeDirectoryIsFinishedAndTheUsersModeIsTheirs) {
  const fs::path c = temp() / "c";
  fs::create_directories(c / "nobody");
  fs::permissions(c, fs::perms(0755));
  fs::permissions(c / "nobody", fs::perms(0755));  // root-owned: left by an interrupted prolog
  EXPECT_EQ(prolog(c), "");
  EXPECT_EQ(owner(c / "nobody"), 65534u);
  EXPECT_EQ(mode(c / "nobody"), 0700u);

  ASSERT_EQ(::chmod((c / "nobody").c_str(), 0750), 0);  // the user opened it to their group
  EXPECT_EQ(prolog(c), "");
  EXPECT_EQ(mode(c / "nobody"), 0750u);
}

TEST_F(CacheDir, AUserWithoutAPasswdEntryGetsTheirUid) {
  fake_spank::state().uid = 3999999;
  EXPECT_EQ(prolog(temp() / "c"), "");
  EXPECT_EQ(owner(temp() / "c" / "3999999"), 3999999u);
}

}  // namespace
}  // namespace trn::test
