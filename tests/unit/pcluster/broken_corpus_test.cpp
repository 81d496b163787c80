// tests/pcluster-broken/: each file is a config with one or more defects and states, in leading
// "# expect: LINE:COLUMN: error: MESSAGE" lines, exactly the errors the linter must report.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "corpus.hpp"
#include "trn/pcluster/config_check.hpp"

namespace {

const std::string expect_prefix = "# expect: ";

std::vector<std::string> expected_errors(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> expected;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(expect_prefix, 0) == 0) expected.push_back(line.substr(expect_prefix.size()));
  }
  return expected;
}

class BrokenConfig : public testing::TestWithParam<std::filesystem::path> {};

TEST_P(BrokenConfig, FailsWithExactlyTheExpectedErrors) {
  const auto expected = expected_errors(GetParam());
  ASSERT_FALSE(expected.empty()) << GetParam() << " states no '# expect:' line";
  std::vector<std::string> actual;
  const auto diagnostics = trn::pcluster::check_cluster_config_file(GetParam());
  EXPECT_TRUE(trn::pcluster::has_errors(diagnostics));
  for (const auto& d : diagnostics) {
    if (d.severity != trn::pcluster::Severity::kError) continue;
    actual.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) +
                     ": error: " + d.message);
  }
  EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(PclusterBroken, BrokenConfig,
                         testing::ValuesIn(trn_test::yaml_files_in(TRN_SOURCE_DIR
                                                                   "/tests/pcluster-broken")),
                         trn_test::file_stem_name);

}  // namespace
