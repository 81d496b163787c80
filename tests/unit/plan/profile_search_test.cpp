// Finding a profile: $TRN_PROFILE_PATH, the user's config directory, the share directories.
#include "trn/plan/profile_search.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "plan_test_support.hpp"

namespace {

using plan_test::error_of;
using plan_test::minimal_profile;
using plan_test::TempDir;
using testing::HasSubstr;
using testing::StartsWith;
using namespace trn::plan;
namespace fs = std::filesystem;

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ProfileSearchDirs, OrderIsProfilePathThenConfigThenShare) {
  const auto dirs = profile_search_dirs(
      env_of({{"TRN_PROFILE_PATH", "/a::/b:"}, {"XDG_CONFIG_HOME", "/xdg"}, {"HOME", "/home/u"}}),
      {"/usr/share/trn-slurm/profiles", "/src/launcher/profiles"});
  EXPECT_EQ(dirs,
            (std::vector<fs::path>{"/a", "/b", "/xdg/trn-slurm/profiles",
                                   "/usr/share/trn-slurm/profiles", "/src/launcher/profiles"}));
}

TEST(ProfileSearchDirs, ConfigFallsBackToHome) {
  EXPECT_EQ(profile_search_dirs(env_of({{"HOME", "/home/u"}}), {"/share"}),
            (std::vector<fs::path>{"/home/u/.config/trn-slurm/profiles", "/share"}));
  // XDG_CONFIG_HOME must be absolute to count (XDG base directory specification).
  EXPECT_EQ(profile_search_dirs(env_of({{"HOME", "/home/u"}, {"XDG_CONFIG_HOME", "rel"}}), {}),
            (std::vector<fs::path>{"/home/u/.config/trn-slurm/profiles"}));
  EXPECT_EQ(profile_search_dirs(env_of({}), {"/share"}), (std::vector<fs::path>{"/share"}));
}

class ProfileLookup : public testing::Test {
 protected:
  TempDir tmp;
  fs::path path_dir = tmp.path() / "path";
  fs::path config_dir = tmp.path() / "xdg" / "trn-slurm" / "profiles";
  fs::path share_dir = tmp.path() / "share";

  std::vector<fs::path> dirs() const {
    return profile_search_dirs(env_of({{"TRN_PROFILE_PATH", path_dir.string()},
                                       {"XDG_CONFIG_HOME", (tmp.path() / "xdg").string()}}),
                               {share_dir});
  }

  void write(const fs::path& dir, const std::string& file, const std::string& description) {
    tmp.write(fs::relative(dir / file, tmp.path()),
              minimal_profile + "description: " + description + "\n");
  }
};

TEST_F(ProfileLookup, FirstDirectoryWins) {
  write(share_dir, "alpha.yaml", "share");
  write(config_dir, "alpha.yaml", "config");
  write(path_dir, "alpha.yaml", "path");
  write(share_dir, "beta.yaml", "share");
  write(config_dir, "beta.yml", "config");
  write(share_dir, "gamma.yaml", "share");
  EXPECT_EQ(load_profile("alpha", dirs()).description, "path");
  EXPECT_EQ(load_profile("beta", dirs()).description, "config");
  const Profile gamma = load_profile("gamma", dirs());
  EXPECT_EQ(gamma.description, "share");
  EXPECT_EQ(gamma.name, "gamma");
  EXPECT_EQ(gamma.source, share_dir / "gamma.yaml");
}

TEST_F(ProfileLookup, AvailableProfilesAreListedOnceFromTheWinningDirectory) {
  write(share_dir, "alpha.yaml", "share");
  write(path_dir, "alpha.yaml", "path");
  write(config_dir, "beta.yml", "config");
  tmp.write("share/notes.txt", "not a profile");
  const auto available = available_profiles(dirs());
  ASSERT_EQ(available.size(), 2u);
  EXPECT_EQ(available[0].name, "alpha");
  EXPECT_EQ(available[0].file, path_dir / "alpha.yaml");
  EXPECT_EQ(available[1].name, "beta");
}

TEST_F(ProfileLookup, UnknownProfileListsTheAvailableOnes) {
  write(share_dir, "bert_tiny.yaml", "x");
  write(config_dir, "mine.yaml", "x");
  const std::string message = error_of([&] { locate_profile("bert_tyni", dirs()); });
  EXPECT_THAT(
      message,
      StartsWith("unknown profile 'bert_tyni' (did you mean 'bert_tiny'?): available "
                 "profiles: bert_tiny, "
                 "mine (searched " +
                 path_dir.string() + ", " + config_dir.string() + ", " + share_dir.string() + ")"));
  EXPECT_THAT(message, HasSubstr("give one of these names or the path of a YAML file"));
  EXPECT_THAT(error_of([&] { locate_profile("other", dirs()); }),
              StartsWith("unknown profile 'other': available profiles: bert_tiny, mine"));
}

TEST_F(ProfileLookup, PathsAreTakenAsPaths) {
  const auto file = tmp.write("elsewhere/custom.yaml", minimal_profile);
  const Profile p = load_profile(file.string(), dirs());
  EXPECT_EQ(p.name, "custom");
  EXPECT_EQ(p.source, file);
  EXPECT_THAT(error_of([&] { locate_profile("missing.yaml", dirs()); }),
              StartsWith("profile missing.yaml: no such file"));
  EXPECT_THAT(error_of([&] { locate_profile("", dirs()); }), StartsWith("no profile given"));
}

TEST(BundledProfiles, AreFoundInTheSourceTree) {
  const auto available = available_profiles({plan_test::bundled_dir});
  std::vector<std::string> names;
  names.reserve(available.size());
  for (const auto& profile : available) names.push_back(profile.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bert_finetune", "bert_pretrain", "bert_pretrain_lamb",
                                             "bert_pretrain_ph2", "bert_tiny", "llama2_7b",
                                             "llama2_7b_nxd", "llama3_70b", "llama3_8b",
                                             "llama_tiny", "torchtitan_qwen3_8b"}));
}

}  // namespace
