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

TEST(TaskCommand, PerWorkerCoresStartEachWorkerThroughNeuronWorker) {
  EXPECT_THAT(trn::plan::task_command({"python3", "train.py"}, 64,
                                      {"/opt/bin/trn-launcher", "neuron-worker", "--"}),
              ElementsAre("torchrun", "--nproc_per_node=64", "--no_python", "/opt/bin/trn-launcher",
                          "neuron-worker", "--", "python3", "train.py"));
  // One worker per task is the task itself, which spank_trn gives its own cores.
  EXPECT_THAT(trn::plan::task_command({"python3", "train.py"}, 1,
                                      {"/opt/bin/trn-launcher", "neuron-worker", "--"}),
              ElementsAre("python3", "train.py"));
}

// The native path's profiles (TorchNeuron, one core per process) narrow each torchrun worker to
// its own core on Neuron nodes; the torch-xla ones leave the task's range to torch-xla; on
// nodes without Neuron devices there is nothing to narrow.
TEST(TaskCommand, WorkerPrefixFollowsTheProfilesWorkerCores) {
  const std::filesystem::path launcher = "/opt/trn-slurm/bin/trn-launcher";
  for (const auto* name : {"llama3_8b", "llama3_70b", "torchtitan_qwen3_8b"}) {
    const auto profile = plan_test::bundled(name);
    EXPECT_EQ(profile.worker_cores, trn::plan::WorkerCores::kPerWorker) << name;
    const auto plan = trn::plan::make_plan(profile, plan_test::on(2, 64));
    const auto command = trn::plan::task_command(plan.command, plan.processes_per_task,
                                                 trn::plan::worker_prefix(plan, launcher));
    ASSERT_GE(command.size(), 7u) << name;
    EXPECT_THAT(std::vector(command.begin(), command.begin() + 6),
                ElementsAre("torchrun", "--nproc_per_node=64", "--no_python", launcher.string(),
                            "neuron-worker", "--"))
        << name;
    EXPECT_EQ(command[6], plan.command.front()) << name;
    auto on_cpus = profile;
    on_cpus.cpu_workers_per_node = 8;  // a multiple of every profile's tensor_parallel
    EXPECT_THAT(
        trn::plan::worker_prefix(trn::plan::make_plan(on_cpus, plan_test::on(2, 0)), launcher),
        ElementsAre())
        << name << " on CPU nodes";
  }
  const auto xla = trn::plan::make_plan(plan_test::bundled("llama2_7b_nxd"), plan_test::on(2, 32));
  EXPECT_EQ(xla.worker_cores, trn::plan::WorkerCores::kPerTask);
  EXPECT_THAT(trn::plan::worker_prefix(xla, launcher), ElementsAre());
}

}  // namespace
