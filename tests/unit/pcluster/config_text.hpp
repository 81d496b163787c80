#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trn/pcluster/config_check.hpp"

// A small valid cluster config and helpers to break it one way at a time. The config tests
// say `using namespace trn_test;` for these and the matchers they all use.
namespace trn_test {

using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;

inline const std::string valid_config = R"(Region: us-east-1
Image:
  Os: ubuntu2404
HeadNode:
  InstanceType: c5.4xlarge
  Networking:
    SubnetId: subnet-0123456789abcdef0
  CustomActions:
    OnNodeConfigured:
      Script: s3://bucket/trn-slurm/trn-slurm-setup.sh
Scheduling:
  Scheduler: slurm
  SlurmQueues:
    - Name: trn1
      ComputeResources:
        - Name: trn1-32xl
          InstanceType: trn1.32xlarge
          MinCount: 0
          MaxCount: 16
          Efa:
            Enabled: true
      Networking:
        SubnetIds:
          - subnet-0123456789abcdef0
        PlacementGroup:
          Enabled: true
      CustomActions:
        OnNodeConfigured:
          Script: s3://bucket/trn-slurm/trn-slurm-setup.sh
SharedStorage:
  - MountDir: /fsx
    Name: fsx
    StorageType: FsxLustre
    FsxLustreSettings:
      StorageCapacity: 1200
)";

// `text` with the first occurrence of `from` replaced by `to`; fails the test when `from` is
// absent, so a typo cannot turn a test into a check of the valid config.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the config";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The errors (not warnings) of checking `text`, as "LINE:COLUMN: MESSAGE".
inline std::vector<std::string> errors_of(const std::string& text,
                                          trn::pcluster::CheckOptions options = {}) {
  std::vector<std::string> errors;
  for (const auto& d : trn::pcluster::check_cluster_config("test.yaml", text, options)) {
    if (d.severity == trn::pcluster::Severity::kError) {
      errors.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message);
    }
  }
  return errors;
}

}  // namespace trn_test
