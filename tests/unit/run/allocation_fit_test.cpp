#include "trn/run/allocation_fit.hpp"

#include <gtest/gtest.h>

#include "trn/common/error.hpp"

namespace {

using trn::run::allocation_shortfall;
using trn::run::NodeNeeds;
using trn::run::parse_cpus_per_node;
using trn::run::SlurmAllocation;

TEST(CpusPerNode, SlurmsCompressedListExpandsInNodeOrder) {
  EXPECT_EQ(parse_cpus_per_node("72(x2),36", 3), (std::vector<unsigned>{72, 72, 36}));
  EXPECT_EQ(parse_cpus_per_node("1", 1), (std::vector<unsigned>{1}));
  EXPECT_EQ(parse_cpus_per_node("2,4(x1)", 2), (std::vector<unsigned>{2, 4}));
}

TEST(CpusPerNode, AnythingElseNamesTheVariable) {
  for (const char* bad :
       {"", "x", "2(x", "2(x0)", "2(x2", "2,", ",2", "2(y2)", "-1", "2 ", "2(x3)"}) {
    try {
      parse_cpus_per_node(bad, 2);
      FAIL() << "accepted '" << bad << "'";
    } catch (const trn::Error& error) {
      EXPECT_NE(std::string(error.what()).find("SLURM_JOB_CPUS_PER_NODE"), std::string::npos);
    }
  }
  // A repeat count that would allocate billions of entries is refused before any is made.
  EXPECT_THROW(parse_cpus_per_node("1(x4294967295)", 16), trn::Error);
}

TEST(AllocationFit, AJobWithoutExclusiveHoldsOneCpuPerNode) {
  SlurmAllocation allocation;
  allocation.job_id = 42;
  allocation.cpus_per_node = {1, 1};
  const auto line = allocation_shortfall(allocation, NodeNeeds{.tasks_per_node = 2}, {"n1", "n2"});
  EXPECT_NE(line.find("job 42 holds 1 CPU(s) on n1"), std::string::npos) << line;
  EXPECT_NE(line.find("2 workers per node"), std::string::npos) << line;
  EXPECT_NE(line.find("sbatch --exclusive"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(AllocationFit, WholeNodesFit) {
  SlurmAllocation allocation;
  allocation.cpus_per_node = {128, 128};
  allocation.gpus_on_node = 16;
  EXPECT_EQ(allocation_shortfall(allocation, {.tasks_per_node = 32, .neuron_devices = 16}, {}), "");
  allocation.cpus_per_node.clear();  // Slurm did not say: nothing to hold against the plan
  allocation.gpus_on_node.reset();
  EXPECT_EQ(allocation_shortfall(allocation, {.tasks_per_node = 32, .neuron_devices = 16}, {}), "");
}

TEST(AllocationFit, TooFewNeuronDevicesOfTheGres) {
  SlurmAllocation allocation;
  allocation.cpus_per_node = {128};
  allocation.gpus_on_node = 4;
  const auto line =
      allocation_shortfall(allocation, {.tasks_per_node = 32, .neuron_devices = 16}, {"trn-1"});
  EXPECT_NE(line.find("4 Neuron device(s) per node"), std::string::npos) << line;
  EXPECT_NE(line.find("--gres=gpu:16"), std::string::npos) << line;
}

TEST(SlurmRefusedStep, OnlyTheJobsOwnShortfall) {
  EXPECT_TRUE(trn::run::slurm_refused_step(
      "srun: error: Unable to create step for job 7: More processors requested than permitted\n"));
  EXPECT_TRUE(trn::run::slurm_refused_step(
      "srun: error: Unable to create step for job 7: Memory required by task is not available"));
  // A step refused for a lost node is the node's failure, not the job's configuration.
  EXPECT_FALSE(trn::run::slurm_refused_step(
      "srun: error: Unable to create step for job 7: Required node not available (down, drained "
      "or reserved)"));
  EXPECT_FALSE(trn::run::slurm_refused_step("srun: error: n2: task 1: Killed"));
}

}  // namespace
