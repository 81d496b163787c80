#include "trn/run/launch_step_facts.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "fixtures.hpp"
#include "trn/common/error.hpp"
#include "trn/placement/placement.hpp"
#include "trn/taskenv/task_environment.hpp"

namespace {

using trn::run::launch_step_facts;
using trn::run::LaunchEnvironment;
using trn::run::Launcher;
using Env = std::map<std::string, std::string>;

// The environment of one task, computed as spank_trn computes it under srun.
Env task_env(const trn::taskenv::StepFacts& facts, unsigned local_task) {
  const auto& topology = trn::test::discovered("trn1.32xlarge");
  trn::placement::PlacementRequest request;
  request.local_tasks = facts.local_task_count;
  const auto placement = trn::placement::place_step(topology, request);
  const auto step = trn::taskenv::prepare_step_environment(topology, placement, facts, {});
  const auto task = trn::taskenv::task_environment(
      step, {local_task, facts.node_id * facts.local_task_count + local_task},
      [](const std::string&) { return std::nullopt; });
  Env env;
  for (const auto& var : task.set) env[var.name] = var.value;
  return env;
}

LaunchEnvironment batch_node(unsigned rank, std::string main_host) {
  LaunchEnvironment launch;
  launch.launcher = Launcher::kBatch;
  launch.nodes = 3;
  launch.node_rank = rank;
  launch.main_host = std::move(main_host);
  return launch;
}

}  // namespace

TEST(LaunchStepFacts, AChildNodeIsTheStepNodeAtItsRankWithTheMainNodeFirst) {
  const auto facts = launch_step_facts(batch_node(2, "10.0.0.5"), 32, "ip-10-0-0-7");
  EXPECT_EQ(facts.nnodes, 3u);
  EXPECT_EQ(facts.node_id, 2u);
  EXPECT_EQ(facts.local_task_count, 32u);
  EXPECT_EQ(facts.total_task_count, 96u);
  EXPECT_EQ(facts.first_host, "10.0.0.5");
  EXPECT_EQ(facts.node_name, "ip-10-0-0-7");
  // Its fourth worker gets what the fourth task of the third node of a 3-node srun step gets.
  const auto env = task_env(facts, 3);
  EXPECT_EQ(env.at("RANK"), "67");
  EXPECT_EQ(env.at("LOCAL_RANK"), "3");
  EXPECT_EQ(env.at("WORLD_SIZE"), "96");
  EXPECT_EQ(env.at("NODE_RANK"), "2");
  EXPECT_EQ(env.at("MASTER_ADDR"), "10.0.0.5");
  EXPECT_EQ(env.at("NEURON_RT_VISIBLE_CORES"), "3");
  EXPECT_EQ(env.at("NEURON_RT_ROOT_COMM_ID").rfind("10.0.0.5:", 0), 0u);
}

TEST(LaunchStepFacts, EveryNodeDerivesTheSameRendezvousPorts) {
  const auto main_env = task_env(launch_step_facts(batch_node(0, ""), 32, "10.0.0.5"), 0);
  const auto child_env = task_env(launch_step_facts(batch_node(1, "10.0.0.5"), 32, "b"), 0);
  EXPECT_EQ(main_env.at("MASTER_ADDR"), "10.0.0.5");  // the main node is its own rendezvous
  EXPECT_EQ(main_env.at("MASTER_PORT"), child_env.at("MASTER_PORT"));
  EXPECT_EQ(main_env.at("NEURON_RT_ROOT_COMM_ID"), child_env.at("NEURON_RT_ROOT_COMM_ID"));
  EXPECT_EQ(main_env.at("RANK"), "0");
  EXPECT_EQ(child_env.at("RANK"), "32");
}

TEST(LaunchStepFacts, ASingleNodeRunIsOneNodeStep) {
  LaunchEnvironment local;  // local: 1 node, rank 0, no main host
  const auto facts = launch_step_facts(local, 2, "box");
  EXPECT_EQ(facts.nnodes, 1u);
  EXPECT_EQ(facts.total_task_count, 2u);
  EXPECT_EQ(facts.first_host, "box");
  EXPECT_EQ(task_env(facts, 1).at("RANK"), "1");
}

TEST(LaunchStepFacts, RefusesARankOutsideTheNodesOrNoTasks) {
  EXPECT_THROW(launch_step_facts(batch_node(3, "a"), 1, "x"), trn::Error);
  EXPECT_THROW(launch_step_facts(batch_node(0, ""), 0, "x"), trn::Error);
}
