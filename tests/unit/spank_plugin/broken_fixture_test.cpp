// Every broken fixture tree: the step fails with one spank_trn: message per node that names what
// is wrong, nothing crashes, and nothing broken is cached.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "plugin_test.hpp"

namespace trn::test {
namespace {

std::vector<std::string> broken_trees() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(fixture("broken"))) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class BrokenFixture : public PluginTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(BrokenFixture, FailsTheStepWithAMessageAndNoCrash) {
  set_up_step(1, 0, 2, "localhost");
  const StepRun run = run_step(plugin(), args_for("broken/" + GetParam()));
  EXPECT_EQ(run.init, 0);
  EXPECT_EQ(run.init_post_opt, 0);  // the failure is raised where the user sees it
  EXPECT_LT(run.task_init[0], 0);
  EXPECT_LT(run.task_init[1], 0);
  EXPECT_EQ(run.exit, 0);
  const auto errors = fake_spank::log_lines("error");
  // slurmd's log gets it from init_post_opt, the user from task 0; task 1 fails quietly.
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].rfind("spank_trn: init_post_opt: ", 0), 0u) << errors[0];
  EXPECT_EQ(errors[1].rfind("spank_trn: ", 0), 0u) << errors[1];
  EXPECT_EQ(errors[0].substr(std::string("spank_trn: init_post_opt: ").size()),
            errors[1].substr(std::string("spank_trn: ").size()));
  // The message says what to do, after a colon.
  EXPECT_NE(errors[1].rfind(": "), std::string::npos);
  EXPECT_TRUE(!std::filesystem::exists(temp() / "topology") ||
              std::filesystem::is_empty(temp() / "topology"));
  for (const auto& env : run.task_env) EXPECT_EQ(env.count("NEURON_RT_VISIBLE_CORES"), 0u);
}

INSTANTIATE_TEST_SUITE_P(Trees, BrokenFixture, ::testing::ValuesIn(broken_trees()),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(BrokenFixtures, AreThere) { EXPECT_GE(broken_trees().size(), 10u); }

class MissingRoot : public PluginTest {};

TEST_F(MissingRoot, ANonexistentFsrootFailsTheStep) {
  set_up_step(1, 0, 1, "localhost");
  const StepRun run =
      run_step(plugin(), {"fsroot=/nonexistent/trn-root",
                          "topology_cache=" + (temp() / "t").string(), "local_cache=off"});
  EXPECT_LT(run.task_init[0], 0);
  EXPECT_THAT(fake_spank::log_lines("error", "spank_trn: "),
              ::testing::Contains(::testing::HasSubstr("/nonexistent/trn-root")));
}

}  // namespace
}  // namespace trn::test
