#include "trn/health/step_reports.hpp"

#include <gtest/gtest.h>

#include "trn/health/step_verdict.hpp"

namespace trn::health {
namespace {

const std::vector<std::string> kNodes = {"n1", "n2", "n3"};

std::string report_line(unsigned task, const std::string& node, const char* status) {
  return std::to_string(task) + ": {\"node\":\"" + node +
         "\",\"healthy\":true,\"checks\":[{\"check\":\"efa\",\"status\":\"" + status +
         "\",\"evidence\":\"x\",\"seconds\":0.1}],\"unreached\":[]}\n";
}

TEST(StepReports, EveryNodesLabelledReportIsRead) {
  const auto step =
      read_step_reports(report_line(0, "n1", "ok") + "srun: a message of srun\n" +
                            report_line(1, "n2", "FAILED") + report_line(2, "n3", "ok"),
                        kNodes);
  ASSERT_EQ(step.reports.size(), 3u);
  EXPECT_EQ(step.reports[1].node, "n2");
  EXPECT_EQ(step.reports[1].checks.at(0).status, CheckStatus::kFailed);
  EXPECT_TRUE(step.unreadable.empty());
}

// srun --label cuts lines at 1024 bytes and labels each piece; other tasks' pieces interleave.
TEST(StepReports, AReportInSrunsLabelledPiecesIsJoined) {
  const std::string long_evidence(2500, 'x');
  const auto whole =
      std::string("{\"node\":\"n2\",\"checks\":[{\"check\":\"efa\",\"status\":\"FAILED\",") +
      "\"evidence\":\"" + long_evidence + "\",\"seconds\":0.1}],\"unreached\":[]}";
  std::string output;
  for (std::size_t at = 0; at < whole.size(); at += 1024) {
    output += "1: " + whole.substr(at, 1024) + "\n";
    if (at == 0) output += report_line(0, "n1", "ok");
  }
  output += report_line(2, "n3", "ok");
  const auto step = read_step_reports(output, kNodes);
  EXPECT_TRUE(step.unreadable.empty()) << step.unreadable.at(0).text;
  ASSERT_EQ(step.reports.size(), 3u);
  const auto& n2 = step.reports[1];
  EXPECT_EQ(n2.node, "n2");
  EXPECT_EQ(n2.checks.at(0).evidence, long_evidence);
}

TEST(StepReports, AMalformedLineIsAWarningNamingItsNodeNeverADrain) {
  const auto output = report_line(0, "n1", "ok") + "1: {\"node\":\"n2\",\"checks\":[{\"check\n" +
                      report_line(2, "n3", "ok");
  StepReports step;
  ASSERT_NO_THROW(step = read_step_reports(output, kNodes));
  EXPECT_EQ(step.reports.size(), 2u);
  ASSERT_EQ(step.unreadable.size(), 1u);
  EXPECT_EQ(step.unreadable[0].node, "n2");
  EXPECT_NE(step.unreadable[0].text.find("could not be checked"), std::string::npos)
      << step.unreadable[0].text;

  const auto verdict = judge_step_reports(kNodes, step.reports, step.unreadable);
  EXPECT_TRUE(verdict.unhealthy.empty());
  ASSERT_EQ(verdict.warnings.size(), 1u);
  EXPECT_EQ(verdict.warnings[0].node, "n2");
  EXPECT_NE(verdict.warnings[0].text.find("could not be checked"), std::string::npos);
}

TEST(StepReports, JsonOfAnotherShapeIsUnreadableToo) {
  // Valid JSON, but not trn-health's report (an unknown status, say): the node is not checked.
  const auto output = report_line(0, "n1", "ok") + report_line(1, "n2", "weird");
  const auto step = read_step_reports(output, kNodes);
  EXPECT_EQ(step.reports.size(), 1u);
  ASSERT_EQ(step.unreadable.size(), 1u);
  EXPECT_EQ(step.unreadable[0].node, "n2");
}

}  // namespace
}  // namespace trn::health
