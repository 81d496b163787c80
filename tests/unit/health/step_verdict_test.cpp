#include "trn/health/step_verdict.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trn::health {
namespace {

NodeHealth report(const std::string& node, std::vector<CheckResult> checks,
                  std::vector<std::string> unreached = {}) {
  return {node, std::move(checks), std::move(unreached)};
}

const CheckResult kOk{"efa", CheckStatus::kOk, "8 EFA devices", 0};
const CheckResult kReachOk{"reach", CheckStatus::kOk, "2 peers reached", 0};

TEST(StepVerdict, ALocalFaultMakesOnlyItsNodeUnhealthy) {
  const auto verdict = judge_step_reports(
      {"n1", "n2", "n3"},
      {report("n1", {kOk, kReachOk}),
       report("n2", {{"kernel-log", CheckStatus::kFailed, "NEURON_HW_ERR=DMA_ERROR nd-id=4", 0},
                     kReachOk}),
       report("n3", {kOk, kReachOk})});
  ASSERT_EQ(verdict.unhealthy.size(), 1u);
  EXPECT_EQ(verdict.unhealthy[0].node, "n2");
  EXPECT_EQ(verdict.unhealthy[0].reason, "trn-health: kernel-log: NEURON_HW_ERR=DMA_ERROR nd-id=4");
  EXPECT_TRUE(verdict.warnings.empty());
}

TEST(StepVerdict, AReachFailureBlamesTheNodeTheOthersCannotReach) {
  const CheckResult cannot{"reach", CheckStatus::kFailed, "cannot reach n3", 0};
  const auto verdict = judge_step_reports(
      {"n1", "n2", "n3"},
      {report("n1", {kOk, cannot}, {"n3"}), report("n2", {kOk, cannot}, {"n3"}),
       report("n3", {kOk, {"reach", CheckStatus::kFailed, "cannot reach n1", 0}}, {"n1", "n2"})});
  ASSERT_EQ(verdict.unhealthy.size(), 1u);
  EXPECT_EQ(verdict.unhealthy[0].node, "n3");
  EXPECT_EQ(verdict.unhealthy[0].reason,
            "trn-health: reach: not reachable from 2 of 2 other nodes of the step");
}

TEST(StepVerdict, UndecidableReachAndMissingReportsAreWarningsOnly) {
  const auto verdict = judge_step_reports(
      {"n1", "n2", "n3"},
      {report("n1", {kOk, {"reach", CheckStatus::kFailed, "cannot reach n2", 0}}, {"n2"}),
       report("n2",
              {{"kernel-log", CheckStatus::kWarning, "cannot open dev/kmsg", 0},
               {"reach", CheckStatus::kFailed, "cannot reach n1", 0}},
              {"n1"})});
  EXPECT_TRUE(verdict.unhealthy.empty());
  EXPECT_THAT(grouped_warnings(verdict.warnings),
              testing::UnorderedElementsAre(
                  "n3: no health report (trn-health did not run there)",
                  "n2: kernel-log: cannot open dev/kmsg",
                  "n1: could not reach n2, but no node is unreachable from most others",
                  "n2: could not reach n1, but no node is unreachable from most others"));
}

TEST(StepVerdict, TheSameWarningOnManyNodesIsOneLine) {
  std::vector<NodeWarning> warnings;
  for (int i = 1; i <= 16; ++i) {
    warnings.push_back({"n" + std::to_string(i), "kernel-log: cannot open /dev/kmsg"});
  }
  warnings.push_back({"n7", "efa: cannot list EFA devices"});
  EXPECT_THAT(grouped_warnings(warnings),
              testing::ElementsAre("n1, n2, n3 and 13 more: kernel-log: cannot open /dev/kmsg",
                                   "n7: efa: cannot list EFA devices"));
}

}  // namespace
}  // namespace trn::health
