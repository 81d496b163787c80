// The node's 10 s budget (issue 9): every external tool gets what is left of it, and a tool too
// slow for it is a warning, never a drain. Small budgets here; the 10 s one in health.budget.
#include <gtest/gtest.h>

#include <thread>

#include "fixtures.hpp"
#include "temp_dir.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health {
namespace {

using namespace std::chrono_literals;

NodeCheckOptions on(const std::string& tree, std::chrono::milliseconds budget) {
  NodeCheckOptions options;
  options.fsroot = test::fixture(tree);
  options.deadline = SteadyClock::now() + budget;
  return options;
}

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

TEST(NodeBudget, ANeuronLsSlowerThanTheBudgetIsAWarningAtTheDeadline) {
  test::TempDir dir;
  auto options = on("trn2.48xlarge", 300ms);
  options.neuron_ls_program = dir.write_script("neuron-ls", "exec sleep 30");
  const auto start = SteadyClock::now();
  const auto result = check_neuron_devices(options, expected_for(options.fsroot));
  EXPECT_LT(seconds_since(start), 2.0);
  EXPECT_EQ(result.status, CheckStatus::kWarning) << result.evidence;
  EXPECT_NE(result.evidence.find("did not finish within"), std::string::npos) << result.evidence;
}

TEST(NodeBudget, NeuronLsIsNotStartedOnceTheBudgetIsSpent) {
  test::TempDir dir;
  auto options = on("trn2.48xlarge", -1ms);
  options.neuron_ls_program = dir.write_script("neuron-ls", "touch \"$0.ran\"; exec sleep 30");
  const auto result = check_neuron_devices(options, expected_for(options.fsroot));
  EXPECT_EQ(result.status, CheckStatus::kWarning);
  EXPECT_NE(result.evidence.find("budget is spent"), std::string::npos) << result.evidence;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "neuron-ls.ran"));
}

TEST(NodeBudget, AnAnsweringNeuronLsIsCompared) {
  test::TempDir dir;
  auto options = on("trn2.48xlarge", 5000ms);
  options.neuron_ls_program = dir.write_script(
      "neuron-ls", "cat '" + test::fixture("trn2.48xlarge/neuron-ls-lnc1.json").string() + "'");
  const auto result = check_neuron_devices(options, expected_for(options.fsroot));
  EXPECT_EQ(result.status, CheckStatus::kOk) << result.evidence;
  EXPECT_NE(result.evidence.find("neuron-ls -j agrees"), std::string::npos) << result.evidence;
}

TEST(NodeBudget, ALibfabricSlowerThanTheBudgetIsAWarningAtTheDeadline) {
  auto options = on("trn1n.32xlarge", 300ms);
  options.fabric = [] {
    std::this_thread::sleep_for(3s);  // a provider that hangs; left behind, detached
    return FabricProviders{{"efa"}, ""};
  };
  const auto start = SteadyClock::now();
  const auto result = check_efa(options, expected_for(options.fsroot));
  EXPECT_LT(seconds_since(start), 2.0);
  EXPECT_EQ(result.status, CheckStatus::kWarning) << result.evidence;
  EXPECT_NE(result.evidence.find("fi_getinfo did not answer"), std::string::npos);
}

TEST(NodeBudget, TheWholeNodeCheckEndsWithItsBudget) {
  test::TempDir dir;
  auto options = on("trn1n.32xlarge", 500ms);
  options.neuron_ls_program = dir.write_script("neuron-ls", "exec sleep 30");
  options.fabric = [] {
    std::this_thread::sleep_for(3s);
    return FabricProviders{{"efa"}, ""};
  };
  const auto start = SteadyClock::now();
  const auto run = check_node(options, "n1");
  EXPECT_LT(seconds_since(start), 2.0);
  EXPECT_TRUE(run.health.healthy()) << render_text(run.health);
}

}  // namespace
}  // namespace trn::health
