// The collectives check: nccom-test's documented output judged, the check run on the
// tests/doubles/nccom-test double (success, failure), and its share of the node's budget.
#include "trn/health/collectives.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "manual_clock.hpp"
#include "tool_stand_in.hpp"

namespace trn::health {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path kDouble =
    std::filesystem::path(TRN_SOURCE_DIR) / "tests/doubles/nccom-test";

// The user guide's "quick environment validation" example.
constexpr const char* kDocumentedSuccess =
    "     size(B)    count(elems)     type    time(us)    algbw(GB/s)    busbw(GB/s)\n"
    "    33554432        33554432    uint8         768          40.69          40.69\n"
    "Avg bus bandwidth:      40.6901GB/s\n";

TEST(Collectives, TheDocumentedResultTableIsOk) {
  const auto ok = judge_nccom_test(kDocumentedSuccess, 0, 2);
  EXPECT_EQ(ok.status, CheckStatus::kOk);
  EXPECT_EQ(ok.evidence,
            "all-reduce of 65536 B over 2 NeuronCores: 768 us, bus bandwidth 40.69 GB/s");
  // Newer versions name the time column by its statistic.
  const auto avg = judge_nccom_test(
      "size(B)    count(elems)    type    time:avg(us)    algbw(GB/s)    busbw(GB/s)\n"
      "   1024             256    fp32            6.19           0.17           0.16\n",
      0, 32);
  EXPECT_EQ(avg.status, CheckStatus::kOk);
  EXPECT_NE(avg.evidence.find("6.19 us, bus bandwidth 0.16 GB/s"), std::string::npos);
}

TEST(Collectives, TheDocumentedFailuresMakeTheNodeUnhealthy) {
  const auto failed_run = judge_nccom_test(
      "     size(B)    count(elems)    type    time(us)    algbw(GB/s)    busbw(GB/s)\n"
      "    33554432    Failure running neuron-bench - log file /tmp/nccom_test_log_7pqpdfjf.log\n"
      "1 errors found - test failed\n",
      1, 32);
  EXPECT_EQ(failed_run.status, CheckStatus::kFailed);
  EXPECT_EQ(failed_run.evidence,
            "all-reduce of 65536 B over 32 NeuronCores failed: Failure running neuron-bench - log "
            "file /tmp/nccom_test_log_7pqpdfjf.log");
  const auto no_driver = judge_nccom_test(
      "Neuron DKMS Driver is not running! Read the troubleshooting guide at: https://x\n", 1, 2);
  EXPECT_EQ(no_driver.status, CheckStatus::kFailed);
  EXPECT_NE(no_driver.evidence.find("Driver is not running"), std::string::npos);
}

TEST(Collectives, OutputItCannotJudgeIsAWarningNeverADrain) {
  const auto usage = judge_nccom_test(
      "usage: nccom-test [-h] -r NWORKERS ...\nnccom-test: error: unrecognized arguments: -x\n", 2,
      2);
  EXPECT_EQ(usage.status, CheckStatus::kWarning);
  EXPECT_NE(usage.evidence.find("unrecognized arguments"), std::string::npos);
  EXPECT_EQ(judge_nccom_test("", 0, 2).status, CheckStatus::kWarning);
}

// The double with no budget: nothing here depends on how fast this machine runs it.
CollectivesOptions with_double() {
  CollectivesOptions options;
  options.nccom_test = kDouble;
  options.ranks = 2;
  return options;
}

TEST(Collectives, RunsNccomTestAndJudgesItsOutput) {
  ::setenv("SLURMD_NODENAME", "n1", 1);
  const auto ok = check_collectives(with_double());
  EXPECT_EQ(ok.status, CheckStatus::kOk) << ok.evidence;
  ::setenv("TRN_DOUBLE_NCCOM_FAIL_NODES", "n0,n1", 1);
  const auto failed = check_collectives(with_double());
  EXPECT_EQ(failed.status, CheckStatus::kFailed) << failed.evidence;
  EXPECT_NE(failed.evidence.find("Failure running neuron-bench"), std::string::npos);
  ::unsetenv("TRN_DOUBLE_NCCOM_FAIL_NODES");
}

// The budget's decisions, on a clock the test moves and a stand-in for nccom-test: no test
// waits out a budget or asserts wall-clock time.
class CollectivesBudget : public ::testing::Test {
 protected:
  CollectivesOptions with_left(std::chrono::milliseconds left) {
    auto options = with_double();
    options.now = clock.source();
    options.deadline = clock.in(left);
    options.run_tool = nccom_test.runner();
    return options;
  }

  test::ManualClock clock;
  test::ToolStandIn nccom_test{clock};
};

TEST_F(CollectivesBudget, NccomTestIsGivenWhatIsLeftOfTheBudgetAsItsTimeout) {
  nccom_test.answers(kDocumentedSuccess, 0, 2500ms);
  const auto ok = check_collectives(with_left(4321ms));
  EXPECT_EQ(ok.status, CheckStatus::kOk) << ok.evidence;
  ASSERT_EQ(nccom_test.runs().size(), 1u);
  EXPECT_EQ(nccom_test.runs()[0].argv, nccom_test_command(kDouble, 2));
  EXPECT_EQ(nccom_test.runs()[0].timeout, 4321ms);
  EXPECT_DOUBLE_EQ(ok.seconds, 2.5);  // by the budget's clock
}

TEST_F(CollectivesBudget, NccomTestIsNotStartedWithLessThanASecondLeft) {
  nccom_test.answers(kDocumentedSuccess);
  for (const auto left : {999ms, 0ms, -5000ms}) {
    const auto spent = check_collectives(with_left(left));
    EXPECT_EQ(spent.status, CheckStatus::kWarning) << left.count() << " ms: " << spent.evidence;
    EXPECT_NE(spent.evidence.find("budget is spent"), std::string::npos) << spent.evidence;
  }
  EXPECT_TRUE(nccom_test.runs().empty());
  // A whole second is still worth a try.
  EXPECT_EQ(check_collectives(with_left(1000ms)).status, CheckStatus::kOk);
  ASSERT_EQ(nccom_test.runs().size(), 1u);
  EXPECT_EQ(nccom_test.runs()[0].timeout, 1000ms);
}

TEST_F(CollectivesBudget, ANccomTestThatOverrunsIsAWarningNamingTheBudget) {
  nccom_test.hangs();
  const auto options = with_left(4321ms);
  const auto slow = check_collectives(options);
  EXPECT_EQ(slow.status, CheckStatus::kWarning) << slow.evidence;
  EXPECT_NE(slow.evidence.find(
                "nccom-test did not finish within 4321 ms, what was left of the node check's 10 s"),
            std::string::npos)
      << slow.evidence;
  EXPECT_EQ(options.deadline - clock.now(), 0ms);  // killed at the deadline, not later
}

// The one real run of a hanging tool: capture_process really kills it (and its process group)
// at the timeout the budget gave, 1 s exactly (the test's clock says so). Bounded generously:
// the double would sleep 10 minutes.
TEST_F(CollectivesBudget, AHangingNccomTestIsReallyKilledAtItsTimeout) {
  ::setenv("TRN_DOUBLE_DELAY_S", "600", 1);
  auto options = with_left(1000ms);
  options.run_tool = capture_process;
  const auto started = SteadyClock::now();
  const auto slow = check_collectives(options);
  EXPECT_LT(SteadyClock::now() - started, 20s);
  EXPECT_EQ(slow.status, CheckStatus::kWarning) << slow.evidence;
  EXPECT_NE(slow.evidence.find("did not finish within 1000 ms"), std::string::npos)
      << slow.evidence;
  ::unsetenv("TRN_DOUBLE_DELAY_S");
}

TEST(Collectives, NothingToRunIsSkipped) {
  auto no_devices = with_double();
  no_devices.ranks = 0;
  EXPECT_EQ(check_collectives(no_devices).status, CheckStatus::kSkipped);
  auto not_installed = with_double();
  not_installed.nccom_test.reset();
  const auto note = check_collectives(not_installed);
  EXPECT_EQ(note.status, CheckStatus::kSkipped);
  EXPECT_NE(note.evidence.find("nccom-test not installed"), std::string::npos);
}

TEST(Collectives, TheCommandFollowsTheDocumentedCli) {
  EXPECT_EQ(nccom_test_command("nccom-test", 32),
            (std::vector<std::string>{"nccom-test", "-r", "32", "-b", "65536", "-e", "65536", "-n",
                                      "5", "-w", "1", "-d", "fp32", "allr", "--check"}));
}

}  // namespace
}  // namespace trn::health
