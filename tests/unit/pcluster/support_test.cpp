// The small public pieces: names, instance traits, diagnostics, reading files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "trn/common/error.hpp"
#include "trn/pcluster/config_check.hpp"
#include "trn/pcluster/resource_name.hpp"

using trn::pcluster::Diagnostic;
using trn::pcluster::Severity;

TEST(PclusterResourceName, Rules) {
  EXPECT_TRUE(trn::pcluster::is_valid_resource_name("trn1-32xl"));
  EXPECT_TRUE(trn::pcluster::is_valid_resource_name("a"));
  EXPECT_TRUE(trn::pcluster::is_valid_resource_name(std::string(25, 'q')));
  EXPECT_FALSE(trn::pcluster::is_valid_resource_name(std::string(26, 'q')));
  EXPECT_FALSE(trn::pcluster::is_valid_resource_name(""));
  EXPECT_FALSE(trn::pcluster::is_valid_resource_name("-trn"));
  EXPECT_FALSE(trn::pcluster::is_valid_resource_name("9trn"));
  EXPECT_FALSE(trn::pcluster::is_valid_resource_name("trn_1"));
  EXPECT_FALSE(trn::pcluster::is_valid_resource_name("Trn"));
  EXPECT_FALSE(trn::pcluster::is_valid_resource_name("trn.1"));
}

TEST(PclusterDiagnostic, CompilerStyleLine) {
  Diagnostic d{"a.yaml", 3, 9, Severity::kError, "boom"};
  EXPECT_EQ(d.to_string(), "a.yaml:3:9: error: boom");
  d.severity = Severity::kWarning;
  EXPECT_EQ(d.to_string(), "a.yaml:3:9: warning: boom");
  EXPECT_FALSE(trn::pcluster::has_errors({d}));
  d.severity = Severity::kError;
  EXPECT_TRUE(trn::pcluster::has_errors({d}));
}

TEST(PclusterFile, UnreadableFileThrowsANamedError) {
  try {
    trn::pcluster::check_cluster_config_file("/nonexistent/cluster.yaml");
    FAIL() << "expected trn::Error";
  } catch (const trn::Error& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("'/nonexistent/cluster.yaml'"));
  }
  EXPECT_THROW(trn::pcluster::check_cluster_config_file(std::filesystem::temp_directory_path()),
               trn::Error);
}

TEST(PclusterFile, DiagnosticsNameTheFile) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("trn-pcluster-test-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "Image: {Os: ubuntu2404}\n";
  const auto diagnostics = trn::pcluster::check_cluster_config_file(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_EQ(diagnostics[0].file, path.string());
}
