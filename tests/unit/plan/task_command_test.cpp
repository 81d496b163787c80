#include "trn/plan/task_command.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan_test_support.hpp"
#include "trn/common/error.hpp"
#include "trn/plan/plan.hpp"

using testing::ElementsAre;

namespace {

TEST(TaskCommand, OneWorkerPerTaskRunsTheWorkerItself) {
  EXPECT_THAT(trn::plan::task_command({"python3", "train.py"}, 1),
              ElementsAre("python3", "train.py"));
}

TEST(TaskCommand, SeveralWorkersPerTaskGoThroughTorchrun) {
  EXPECT_THAT(trn::plan::task_command({"python3", "train.py", "--tp", "8"}, 32),
              ElementsAre("torchrun", "--nproc_per_node=32", "--no_python", "python3", "train.py",
                          "--tp", "8"));
  EXPECT_THROW(trn::plan::task_command({"python3"}, 0), trn::Error);
}

TEST(TaskCommand, TorchrunProfileStartsEveryNeuronCoreOfANode) {
  // llama2_7b_nxd launches one task per node: each must start 32 workers on trn1.32xlarge.
  const auto plan =
      trn::plan::make_plan(plan_test::bundled("llama2_7b_nxd"), plan_test::on(16, 32));
  EXPECT_EQ(plan.tasks_per_node, 1);
  const auto command = trn::plan::task_command(plan.command, plan.processes_per_task);
  ASSERT_GE(command.size(), 4u);
  EXPECT_EQ(command[0], "torchrun");
  EXPECT_EQ(command[1], "--nproc_per_node=32");
}

}  // namespace
