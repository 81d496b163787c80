// The node's 10 s budget (issue 9): every external tool gets what is left of it, a tool not yet
// started when it is spent is not started, and a tool too slow for it is a warning, never a
// drain. Decided on a clock the test moves and stand-ins for the tools, so no test waits out a
// budget or asserts wall-clock time (a loaded machine cannot fail them); Collectives.* holds the
// one run of a real hanging tool, and tests/integration/health/budget_wall_clock.sh trn-health's
// real 10 s.
#include <gtest/gtest.h>

#include <future>

#include "fixtures.hpp"
#include "manual_clock.hpp"
#include "temp_dir.hpp"
#include "tool_stand_in.hpp"
#include "trn/common/text_file.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health {
namespace {

using namespace std::chrono_literals;

// A provider query that has not answered by the end of the test. It gives up after 20 s, so
// that a check waiting for it regardless of the budget fails its test instead of hanging it.
class HangingFabric {
 public:
  HangingFabric() = default;
  HangingFabric(const HangingFabric&) = delete;
  HangingFabric& operator=(const HangingFabric&) = delete;
  ~HangingFabric() { release_.set_value(); }

  std::function<FabricProviders()> query() const {
    return [released = released_] {
      released.wait_for(20s);
      return FabricProviders{{"efa"}, ""};
    };
  }

 private:
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
};

class NodeBudget : public ::testing::Test {
 protected:
  // The checks of a recorded tree with `left` of the node's budget on the test's clock, neuron-ls
  // being the stand-in (the program only has to exist; it would leave a mark if it ran).
  NodeCheckOptions on(const std::string& tree, std::chrono::milliseconds left) {
    NodeCheckOptions options;
    options.fsroot = test::fixture(tree);
    options.now = clock.source();
    options.deadline = clock.in(left);
    options.neuron_ls_program = dir.write_script("neuron-ls", "touch \"$0.ran\"");
    options.run_tool = neuron_ls.runner();
    return options;
  }
  std::string recorded_neuron_ls() const {
    return read_text(test::fixture("trn2.48xlarge/neuron-ls-lnc1.json"),
                     "run tests/fixtures/generate.py");
  }

  test::TempDir dir;
  test::ManualClock clock;
  test::ToolStandIn neuron_ls{clock};
};

TEST_F(NodeBudget, NeuronLsIsGivenWhatIsLeftOfTheBudgetAsItsTimeout) {
  const auto options = on("trn2.48xlarge", 3217ms);
  neuron_ls.answers(recorded_neuron_ls(), 0, 400ms);
  const auto result = check_neuron_devices(options, expected_for(options.fsroot));
  EXPECT_EQ(result.status, CheckStatus::kOk) << result.evidence;
  EXPECT_NE(result.evidence.find("neuron-ls -j agrees"), std::string::npos) << result.evidence;
  ASSERT_EQ(neuron_ls.runs().size(), 1u);
  EXPECT_EQ(neuron_ls.runs()[0].argv,
            (std::vector<std::string>{options.neuron_ls_program->string(), "-j"}));
  EXPECT_EQ(neuron_ls.runs()[0].timeout, 3217ms);
}

TEST_F(NodeBudget, NeuronLsNeverGetsMoreThanItsOwnLimit) {
  const auto options = on("trn2.48xlarge", 60s);
  neuron_ls.answers(recorded_neuron_ls());
  EXPECT_EQ(check_neuron_devices(options, expected_for(options.fsroot)).status, CheckStatus::kOk);
  ASSERT_EQ(neuron_ls.runs().size(), 1u);
  EXPECT_EQ(neuron_ls.runs()[0].timeout, kNeuronLsLimit);
}

TEST_F(NodeBudget, NeuronLsIsNotStartedOnceTheBudgetIsSpent) {
  neuron_ls.answers(recorded_neuron_ls());
  for (const auto left : {0ms, -2000ms}) {  // spent just now, and long ago
    const auto options = on("trn2.48xlarge", left);
    const auto result = check_neuron_devices(options, expected_for(options.fsroot));
    EXPECT_EQ(result.status, CheckStatus::kWarning) << left.count() << " ms: " << result.evidence;
    EXPECT_NE(result.evidence.find("budget is spent"), std::string::npos) << result.evidence;
  }
  EXPECT_TRUE(neuron_ls.runs().empty());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "neuron-ls.ran"));
  // The last millisecond is still given.
  const auto options = on("trn2.48xlarge", 1ms);
  EXPECT_EQ(check_neuron_devices(options, expected_for(options.fsroot)).status, CheckStatus::kOk);
  ASSERT_EQ(neuron_ls.runs().size(), 1u);
  EXPECT_EQ(neuron_ls.runs()[0].timeout, 1ms);
}

TEST_F(NodeBudget, ANeuronLsThatOverrunsIsAWarningAtTheDeadline) {
  const auto options = on("trn2.48xlarge", 3217ms);
  neuron_ls.hangs();
  const auto result = check_neuron_devices(options, expected_for(options.fsroot));
  EXPECT_EQ(result.status, CheckStatus::kWarning) << result.evidence;
  EXPECT_NE(result.evidence.find("did not finish within 3217 ms"), std::string::npos)
      << result.evidence;
  EXPECT_EQ(options.deadline - clock.now(), 0ms);  // killed at the deadline, not later
}

TEST_F(NodeBudget, ALibfabricThatHasNotAnsweredByTheDeadlineIsAWarning) {
  auto options = on("trn1n.32xlarge", 0ms);
  const HangingFabric fabric;
  options.fabric = fabric.query();
  const auto result = check_efa(options, expected_for(options.fsroot));
  EXPECT_EQ(result.status, CheckStatus::kWarning) << result.evidence;
  EXPECT_NE(result.evidence.find("fi_getinfo did not answer within the node check's 10 s"),
            std::string::npos)
      << result.evidence;
}

TEST_F(NodeBudget, ALibfabricThatAnswersWithinTheBudgetIsJudged) {
  auto options = on("trn1n.32xlarge", 5000ms);
  options.fabric = [] { return FabricProviders{{"tcp", "efa"}, ""}; };
  EXPECT_EQ(check_efa(options, expected_for(options.fsroot)).status, CheckStatus::kOk);
  options.fabric = [] { return FabricProviders{{"tcp"}, ""}; };
  const auto no_efa = check_efa(options, expected_for(options.fsroot));
  EXPECT_EQ(no_efa.status, CheckStatus::kFailed) << no_efa.evidence;
}

TEST_F(NodeBudget, TheWholeNodeCheckEndsWithItsBudget) {
  // 2.5 s of the 10 went before the checks (trn-health's start); neuron-ls then hangs and
  // libfabric does not answer: every tool is a warning, and the node's checks end exactly at
  // the budget's end, the node healthy.
  auto options = on("trn1n.32xlarge", kNodeCheckBudget);
  clock.advance(2500ms);
  neuron_ls.hangs();
  const HangingFabric fabric;
  options.fabric = fabric.query();
  const auto run = check_node(options, "n1");
  EXPECT_TRUE(run.health.healthy()) << render_text(run.health);
  ASSERT_EQ(neuron_ls.runs().size(), 1u);
  EXPECT_EQ(neuron_ls.runs()[0].timeout, 7500ms);
  EXPECT_EQ(options.deadline - clock.now(), 0ms);
  double seconds = 0;
  for (const auto& check : run.health.checks) {
    seconds += check.seconds;
    if (check.check == "neuron-devices" || check.check == "efa") {
      EXPECT_EQ(check.status, CheckStatus::kWarning) << check.check << ": " << check.evidence;
    }
  }
  EXPECT_DOUBLE_EQ(seconds, 7.5);  // by the budget's clock: the checks took what was left
}

TEST_F(NodeBudget, AnAnsweringNeuronLsIsCompared) {
  // The real runner on a script, with no budget: the stand-in is no stand-in for the real run.
  NodeCheckOptions options;
  options.fsroot = test::fixture("trn2.48xlarge");
  options.neuron_ls_program = dir.write_script(
      "neuron-ls", "cat '" + test::fixture("trn2.48xlarge/neuron-ls-lnc1.json").string() + "'");
  const auto result = check_neuron_devices(options, expected_for(options.fsroot));
  EXPECT_EQ(result.status, CheckStatus::kOk) << result.evidence;
  EXPECT_NE(result.evidence.find("neuron-ls -j agrees"), std::string::npos) << result.evidence;
}

}  // namespace
}  // namespace trn::health
