#include "trn/run/slurm_task.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "trn/common/error.hpp"

namespace {

using testing::HasSubstr;
using trn::run::read_slurm_task;
using trn::run::tasks_on_node;
using Env = std::map<std::string, std::string>;

// Task 33 of `srun -N2 --ntasks-per-node=32`, as srun(1) sets its environment.
Env second_node_task() {
  return {{"SLURM_JOB_ID", "41"},
          {"SLURM_STEP_ID", "3"},
          {"SLURM_STEP_NUM_NODES", "2"},
          {"SLURM_NODEID", "1"},
          {"SLURM_STEP_NUM_TASKS", "64"},
          {"SLURM_STEP_TASKS_PER_NODE", "32(x2)"},
          {"SLURM_LOCALID", "1"},
          {"SLURM_PROCID", "33"},
          {"SLURM_STEP_NODELIST", "trn-[3-4]"},
          {"SLURMD_NODENAME", "trn-4"}};
}

trn::run::EnvLookup lookup(const Env& env) {
  return [env](const std::string& name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

std::string error_of(const Env& env) {
  try {
    read_slurm_task(lookup(env));
  } catch (const trn::Error& error) {
    return error.what();
  }
  return "";
}

TEST(SlurmTask, ReadsTheStepAndTheTaskAsSpankItemsGiveThem) {
  const auto task = read_slurm_task(lookup(second_node_task()));
  EXPECT_EQ(task.facts.job_id, 41u);
  EXPECT_EQ(task.facts.step_id, 3u);
  EXPECT_EQ(task.facts.nnodes, 2u);
  EXPECT_EQ(task.facts.node_id, 1u);
  EXPECT_EQ(task.facts.local_task_count, 32u);
  EXPECT_EQ(task.facts.total_task_count, 64u);
  EXPECT_EQ(task.facts.first_host, "trn-3");
  EXPECT_EQ(task.facts.node_name, "trn-4");
  EXPECT_EQ(task.ids.local_id, 1u);
  EXPECT_EQ(task.ids.global_id, 33u);
  EXPECT_FALSE(task.devices.has_value());
}

TEST(SlurmTask, GrantedDevicesComeFromGres) {
  auto env = second_node_task();
  env["SLURM_JOB_GPUS"] = "0-3";
  EXPECT_EQ(read_slurm_task(lookup(env)).devices->size(), 4u);
  env["SLURM_STEP_GPUS"] = "2";
  EXPECT_EQ(read_slurm_task(lookup(env)).devices->size(), 1u);
}

TEST(SlurmTask, TasksPerNodeListsGroupsOfNodes) {
  EXPECT_EQ(tasks_on_node("32(x2)", 1, "V"), 32u);
  EXPECT_EQ(tasks_on_node("2(x3),1", 2, "V"), 2u);
  EXPECT_EQ(tasks_on_node("2(x3),1", 3, "V"), 1u);
  EXPECT_EQ(tasks_on_node("4,3,2", 1, "V"), 3u);
  for (const char* bad : {"", "x", "2(x", "2(x0)", "0", "2(y3)", "2(x3)1", "-1", "2,,1"}) {
    EXPECT_THROW(tasks_on_node(bad, 0, "V"), trn::Error) << bad;
  }
  try {
    tasks_on_node("2(x3),1", 4, "SLURM_STEP_TASKS_PER_NODE");
    FAIL() << "a node past the list";
  } catch (const trn::Error& error) {
    EXPECT_THAT(error.what(),
                HasSubstr("SLURM_STEP_TASKS_PER_NODE='2(x3),1' lists 4 node(s), none for node 4"));
  }
}

TEST(SlurmTask, OutsideSrunEachMissingOrWrongVariableIsNamed) {
  auto env = second_node_task();
  env.erase("SLURM_STEP_ID");
  EXPECT_THAT(error_of(env), HasSubstr("SLURM_STEP_ID is not set: it is set by srun"));
  env = second_node_task();
  env["SLURM_PROCID"] = "x";
  EXPECT_THAT(error_of(env), HasSubstr("SLURM_PROCID='x' is not a whole number"));
  env = second_node_task();
  env["SLURM_PROCID"] = "64";
  EXPECT_THAT(error_of(env), HasSubstr("do not fit together"));
  env = second_node_task();
  env["SLURM_NODEID"] = "2";
  EXPECT_THAT(error_of(env), HasSubstr("none for node 2"));
}

}  // namespace
