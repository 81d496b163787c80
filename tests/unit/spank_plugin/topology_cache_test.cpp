// The per-boot topology cache: reused across steps, one file per root, rediscovered after a
// reboot, never shared between a fixture and the real root.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "plugin_test.hpp"

namespace trn::test {
namespace {

using ::testing::HasSubstr;

class TopologyCache : public PluginTest {
 protected:
  std::string last_summary() {
    const auto lines = fake_spank::log_lines("verbose", "spank_trn: step 4242.0 on node0");
    return lines.empty() ? "" : lines.back();
  }
  std::vector<std::filesystem::path> cache_files() {
    std::vector<std::filesystem::path> files;
    if (!std::filesystem::exists(temp() / "topology")) return files;
    for (const auto& e : std::filesystem::directory_iterator(temp() / "topology")) {
      files.push_back(e.path());
    }
    return files;
  }
};

TEST_F(TopologyCache, TheSecondStepReadsTheCache) {
  set_up_step(1, 0, 4, "localhost");
  run_step(plugin(), args_for("trn1.32xlarge"));
  EXPECT_THAT(last_summary(), HasSubstr("topology discovered"));
  ASSERT_EQ(cache_files().size(), 1u);
  EXPECT_THAT(cache_files()[0].filename().string(),
              ::testing::MatchesRegex("topology-[0-9a-f]{16}\\.json"));
  const StepRun run = run_step(plugin(), args_for("trn1.32xlarge"));
  EXPECT_THAT(last_summary(), HasSubstr("topology from cache"));
  EXPECT_EQ(value_of(run.task_env[3], "NEURON_RT_VISIBLE_CORES"), "24-31");
}

TEST_F(TopologyCache, EachRootAndNeuronLsSourceHasItsOwnFile) {
  set_up_step(1, 0, 1, "localhost");
  run_step(plugin(), args_for("trn1.32xlarge"));
  run_step(plugin(), args_for("cpu-only"));
  EXPECT_THAT(last_summary(), HasSubstr("topology discovered"));
  const auto lnc1 = fixture("trn2.48xlarge") / "neuron-ls-lnc1.json";
  const auto lnc2 = fixture("trn2.48xlarge") / "neuron-ls-lnc2.json";
  StepRun run = run_step(plugin(), args_for("trn2.48xlarge", {"neuron_ls=" + lnc1.string()}));
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_LOGICAL_NC_CONFIG"), "1");
  run = run_step(plugin(), args_for("trn2.48xlarge", {"neuron_ls=" + lnc2.string()}));
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_LOGICAL_NC_CONFIG"), "2");
  EXPECT_THAT(last_summary(), HasSubstr("topology discovered"));
  EXPECT_EQ(cache_files().size(), 4u);
  run = run_step(plugin(), args_for("trn2.48xlarge", {"neuron_ls=" + lnc1.string()}));
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_LOGICAL_NC_CONFIG"), "1");
  EXPECT_THAT(last_summary(), HasSubstr("topology from cache"));
}

TEST_F(TopologyCache, ACacheFromAnotherBootIsRediscovered) {
  set_up_step(1, 0, 1, "localhost");
  run_step(plugin(), args_for("trn1.2xlarge"));
  ASSERT_EQ(cache_files().size(), 1u);
  const auto file = cache_files()[0];
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  std::string json = text.str();
  const auto at = json.find("\"boot_id\"");
  ASSERT_NE(at, std::string::npos);
  const auto value = json.find('"', json.find(':', at)) + 1;
  json.replace(value, 8, "00000000");
  std::ofstream(file) << json;
  run_step(plugin(), args_for("trn1.2xlarge"));
  EXPECT_THAT(last_summary(), HasSubstr("topology discovered"));
  EXPECT_THAT(last_summary(), HasSubstr("another boot"));
  run_step(plugin(), args_for("trn1.2xlarge"));
  EXPECT_THAT(last_summary(), HasSubstr("topology from cache"));
}

TEST_F(TopologyCache, OffDiscoversEveryStep) {
  set_up_step(1, 0, 1, "localhost");
  const std::vector<std::string> args = {"fsroot=" + fixture("trn1.2xlarge").string(),
                                         "topology_cache=off", "local_cache=off"};
  run_step(plugin(), args);
  run_step(plugin(), args);
  EXPECT_THAT(last_summary(), HasSubstr("topology discovered (topology_cache=off)"));
}

TEST_F(TopologyCache, TheRealRootUsesTheWellKnownFile) {
  set_up_step(1, 0, 1, "localhost");
  const StepRun run = run_step(plugin(), args_for("/", {"bind=none"}));
  ASSERT_EQ(run.task_init[0], 0) << ::testing::PrintToString(fake_spank::log_lines("error"));
  ASSERT_EQ(cache_files().size(), 1u);
  EXPECT_EQ(cache_files()[0].filename(), "topology.json");
}

}  // namespace
}  // namespace trn::test
