// The collectives check: nccom-test's documented output judged (the bus bandwidth floor too), the
// check run on the tests/doubles/nccom-test double (success, failure, a slow node, the rank
// count), and its share of the node's budget.
#include "trn/health/collectives.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "manual_clock.hpp"
#include "tool_stand_in.hpp"
#include "trn/topology/instance_maps.hpp"

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
  const auto ok = judge_nccom_test(kDocumentedSuccess, 0, 2, kDefaultMinBusbw);
  EXPECT_EQ(ok.status, CheckStatus::kOk);
  EXPECT_EQ(ok.evidence,
            "all-reduce of 33554432 B over 2 NeuronCores: 768 us, bus bandwidth 40.69 GB/s");
  // Newer versions name the time column by its statistic, and may print more of them (the
  // guide's --stats example); the last row is the largest size.
  const auto stats = judge_nccom_test(
      "size(B)    count(elems)    type    time:avg(us)    time:p25(us)    time:p50(us)    "
      "time:p90(us)    time:p99(us)    algbw(GB/s)    busbw(GB/s)\n"
      "   1024             256    fp32            10.0              10              10"
      "              11              12           0.10           0.09\n"
      " 524288          131072    fp32           14.83              14              15"
      "              16              17          35.34          30.92\n"
      "Avg bus bandwidth:\t9.1966GB/s\n",
      0, 8, kDefaultMinBusbw);
  EXPECT_EQ(stats.status, CheckStatus::kOk) << stats.evidence;
  EXPECT_NE(stats.evidence.find("14.83 us, bus bandwidth 30.92 GB/s"), std::string::npos);
}

// The guide's quick validation row at a hundredth of its bus bandwidth: a node whose links move
// 1% of what they should is drained, not passed.
std::string quick_validation_at(const std::string& busbw) {
  return "     size(B)    count(elems)     type    time(us)    algbw(GB/s)    busbw(GB/s)\n"
         "    33554432        33554432    uint8       76800    " +
         busbw + "    " + busbw + "\nAvg bus bandwidth:      " + busbw + "GB/s\n";
}

TEST(Collectives, ABusBandwidthBelowTheFloorMakesTheNodeUnhealthy) {
  const auto slow = judge_nccom_test(quick_validation_at("0.41"), 0, 32, 2);
  EXPECT_EQ(slow.status, CheckStatus::kFailed);
  EXPECT_EQ(slow.evidence,
            "all-reduce of 33554432 B over 32 NeuronCores: bus bandwidth 0.41 GB/s, below the "
            "floor of 2 GB/s (76800 us)");
  EXPECT_EQ(judge_nccom_test(quick_validation_at("1.99"), 0, 32, 2).status, CheckStatus::kFailed);
  // At the floor is enough; no floor (--min-busbw 0) takes any; one rank has no bus to measure.
  EXPECT_EQ(judge_nccom_test(quick_validation_at("2.00"), 0, 32, 2).status, CheckStatus::kOk);
  EXPECT_EQ(judge_nccom_test(quick_validation_at("0.41"), 0, 32, 0).status, CheckStatus::kOk);
  EXPECT_EQ(judge_nccom_test(quick_validation_at("0.00"), 0, 1, 2).status, CheckStatus::kOk);
}

TEST(Collectives, ARowWithoutABusBandwidthCannotBeHeldAgainstTheFloor) {
  // A version whose table left out the bus bandwidth (but shows the algorithm).
  const auto no_busbw = judge_nccom_test(
      "size(B)    count(elems)    type    time:avg(us)    algbw(GB/s)    algorithm\n"
      "33554432    8388608    fp32    1204.5    25.95    ring\n",
      0, 32, 2);
  EXPECT_EQ(no_busbw.status, CheckStatus::kWarning);
  EXPECT_NE(no_busbw.evidence.find("no bus bandwidth to hold against the floor of 2 GB/s"),
            std::string::npos)
      << no_busbw.evidence;
}

TEST(Collectives, TheDocumentedFailuresMakeTheNodeUnhealthy) {
  const auto failed_run = judge_nccom_test(
      "     size(B)    count(elems)    type    time(us)    algbw(GB/s)    busbw(GB/s)\n"
      "    33554432    Failure running neuron-bench - log file /tmp/nccom_test_log_7pqpdfjf.log\n"
      "1 errors found - test failed\n",
      1, 32, kDefaultMinBusbw);
  EXPECT_EQ(failed_run.status, CheckStatus::kFailed);
  EXPECT_EQ(failed_run.evidence,
            "all-reduce of 33554432 B over 32 NeuronCores failed: Failure running neuron-bench - "
            "log file /tmp/nccom_test_log_7pqpdfjf.log");
  const auto no_driver = judge_nccom_test(
      "Neuron DKMS Driver is not running! Read the troubleshooting guide at: https://x\n", 1, 2,
      kDefaultMinBusbw);
  EXPECT_EQ(no_driver.status, CheckStatus::kFailed);
  EXPECT_NE(no_driver.evidence.find("Driver is not running"), std::string::npos);
}

TEST(Collectives, OutputItCannotJudgeIsAWarningNeverADrain) {
  const auto usage = judge_nccom_test(
      "usage: nccom-test [-h] -r NWORKERS ...\nnccom-test: error: unrecognized arguments: -x\n", 2,
      2, kDefaultMinBusbw);
  EXPECT_EQ(usage.status, CheckStatus::kWarning);
  EXPECT_NE(usage.evidence.find("unrecognized arguments"), std::string::npos);
  EXPECT_EQ(judge_nccom_test("", 0, 2, kDefaultMinBusbw).status, CheckStatus::kWarning);
}

// The double on a recorded trn2.48xlarge (16 devices x 8 physical NeuronCores), with no budget:
// nothing here depends on how fast this machine runs it.
CollectivesOptions with_double(unsigned ranks = 2) {
  ::setenv("TRN_DOUBLE_NEURON_LS_JSON",
           (std::filesystem::path(TRN_FIXTURES_DIR) / "trn2.48xlarge/neuron-ls-lnc1.json").c_str(),
           1);
  ::setenv("SLURMD_NODENAME", "n1", 1);
  CollectivesOptions options;
  options.nccom_test = kDouble;
  options.ranks = ranks;
  return options;
}

TEST(Collectives, RunsNccomTestAndJudgesItsOutput) {
  const auto ok = check_collectives(with_double());
  EXPECT_EQ(ok.status, CheckStatus::kOk) << ok.evidence;
  ::setenv("TRN_DOUBLE_NCCOM_FAIL_NODES", "n0,n1", 1);
  const auto failed = check_collectives(with_double());
  EXPECT_EQ(failed.status, CheckStatus::kFailed) << failed.evidence;
  EXPECT_NE(failed.evidence.find("Failure running neuron-bench"), std::string::npos);
  ::unsetenv("TRN_DOUBLE_NCCOM_FAIL_NODES");
}

TEST(Collectives, ASlowNodeIsUnhealthy) {
  // Its all-reduce is correct, at 1% of a healthy node's bus bandwidth.
  ::setenv("TRN_DOUBLE_NCCOM_SLOW_NODES", "n1", 1);
  const auto slow = check_collectives(with_double(64));
  EXPECT_EQ(slow.status, CheckStatus::kFailed) << slow.evidence;
  EXPECT_NE(slow.evidence.find("GB/s, below the floor of 2 GB/s"), std::string::npos)
      << slow.evidence;
  // At a fifth it is slow, but not broken: above the floor.
  ::setenv("TRN_DOUBLE_NCCOM_BUSBW_FRACTION", "0.2", 1);
  const auto degraded = check_collectives(with_double(64));
  EXPECT_EQ(degraded.status, CheckStatus::kOk) << degraded.evidence;
  ::unsetenv("TRN_DOUBLE_NCCOM_SLOW_NODES");
  ::unsetenv("TRN_DOUBLE_NCCOM_BUSBW_FRACTION");
}

TEST(Collectives, TheRankCountIsTheOneNccomTestTakesOnTheNode) {
  // trn-health --step asks for the node's logical NeuronCores as the documented map counts them
  // (step_mode.cpp); the double, like nccom-test, runs no more ranks than the node has.
  ASSERT_EQ(topology::documented_neuron_cores("trn2.48xlarge", 2), 64u);
  EXPECT_EQ(check_collectives(with_double(64)).status, CheckStatus::kOk);
  const auto too_many = check_collectives(with_double(65));
  EXPECT_EQ(too_many.status, CheckStatus::kWarning) << too_many.evidence;
  EXPECT_NE(too_many.evidence.find("asks 65 ranks of a node with 64 logical NeuronCores"),
            std::string::npos)
      << too_many.evidence;
  // NEURON_LOGICAL_NC_CONFIG=1: every physical NeuronCore is a rank.
  ::setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);
  ASSERT_EQ(topology::documented_neuron_cores("trn2.48xlarge", 1), 128u);
  EXPECT_EQ(check_collectives(with_double(128)).status, CheckStatus::kOk);
  EXPECT_EQ(check_collectives(with_double(129)).status, CheckStatus::kWarning);
  ::unsetenv("NEURON_LOGICAL_NC_CONFIG");
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
            (std::vector<std::string>{"nccom-test", "-r", "32", "-b", "33554432", "-e", "33554432",
                                      "-n", "5", "-w", "1", "-d", "fp32", "allr", "--check"}));
}

}  // namespace
}  // namespace trn::health
