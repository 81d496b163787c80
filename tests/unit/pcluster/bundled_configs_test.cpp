// Every config in pcluster-configs/ lints clean, its only findings being the placeholders the
// user must fill in; with --strict those placeholders are errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "corpus.hpp"
#include "trn/pcluster/config_check.hpp"

namespace {

class BundledConfig : public testing::TestWithParam<std::filesystem::path> {};

TEST_P(BundledConfig, PassesWithOnlyPlaceholderWarnings) {
  const auto diagnostics = trn::pcluster::check_cluster_config_file(GetParam());
  for (const auto& d : diagnostics) {
    EXPECT_EQ(d.severity, trn::pcluster::Severity::kWarning) << d.to_string();
    EXPECT_THAT(d.message, testing::StartsWith("placeholder '")) << d.to_string();
  }
}

TEST_P(BundledConfig, PlaceholdersForSubnetKeyRegionAndBucket) {
  trn::pcluster::CheckOptions strict;
  strict.placeholders_are_errors = true;
  std::string all;
  for (const auto& d : trn::pcluster::check_cluster_config_file(GetParam(), strict)) {
    all += d.message + "\n";
  }
  for (const char* expected :
       {"at Region:", "at HeadNode.Networking.SubnetId:", "at HeadNode.Ssh.KeyName:",
        "SubnetIds[0]:", "OnNodeConfigured.Script:", "BucketName:"}) {
    EXPECT_THAT(all, testing::HasSubstr(expected));
  }
}

INSTANTIATE_TEST_SUITE_P(PclusterConfigs, BundledConfig,
                         testing::ValuesIn(trn_test::yaml_files_in(TRN_SOURCE_DIR
                                                                   "/pcluster-configs")),
                         trn_test::file_stem_name);

TEST(BundledConfigs, AllFourAreThere) {
  const auto files = trn_test::yaml_files_in(TRN_SOURCE_DIR "/pcluster-configs");
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.filename().string());
  EXPECT_THAT(names, testing::UnorderedElementsAre("trn1-16.yaml", "trn1-multiqueue.yaml",
                                                   "trn2-16.yaml", "trn1-small.yaml"));
}

}  // namespace
