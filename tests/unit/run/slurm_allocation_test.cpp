#include "trn/run/slurm_allocation.hpp"

#include <gtest/gtest.h>

#include <map>

#include "trn/common/error.hpp"

namespace {

trn::run::EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    const auto found = vars.find(name);
    if (found == vars.end()) return std::nullopt;
    return found->second;
  };
}

TEST(SlurmAllocation, OutsideSlurmIsNone) {
  EXPECT_FALSE(trn::run::read_slurm_allocation(env_of({{"HOME", "/root"}})).has_value());
}

TEST(SlurmAllocation, BatchScriptOfARequeuedJob) {
  const auto allocation =
      trn::run::read_slurm_allocation(env_of({{"SLURM_JOB_ID", "42"},
                                              {"SLURM_JOB_NUM_NODES", "16"},
                                              {"SLURM_JOB_NODELIST", "trn-[1-16]"},
                                              {"SLURM_RESTART_COUNT", "2"}}));
  ASSERT_TRUE(allocation.has_value());
  EXPECT_EQ(allocation->job_id, 42u);
  EXPECT_EQ(allocation->nnodes, 16u);
  EXPECT_EQ(allocation->nodelist, "trn-[1-16]");
  EXPECT_FALSE(allocation->in_step);
  EXPECT_EQ(allocation->restart_count, 2u);
}

TEST(SlurmAllocation, InsideAStep) {
  const auto allocation = trn::run::read_slurm_allocation(env_of({{"SLURM_JOB_ID", "7"},
                                                                  {"SLURM_NNODES", "2"},
                                                                  {"SLURM_NODELIST", "a,b"},
                                                                  {"SLURM_STEP_ID", "0"}}));
  ASSERT_TRUE(allocation.has_value());
  EXPECT_TRUE(allocation->in_step);
  EXPECT_EQ(allocation->nnodes, 2u);
  EXPECT_EQ(allocation->restart_count, 0u);
}

TEST(SlurmAllocation, MalformedValuesNameTheVariable) {
  try {
    trn::run::read_slurm_allocation(env_of(
        {{"SLURM_JOB_ID", "7"}, {"SLURM_JOB_NUM_NODES", "two"}, {"SLURM_JOB_NODELIST", "a"}}));
    FAIL() << "no error";
  } catch (const trn::Error& error) {
    EXPECT_NE(std::string(error.what()).find("SLURM_JOB_NUM_NODES='two'"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(trn::run::read_slurm_allocation(env_of({{"SLURM_JOB_ID", "7"}})), trn::Error);
}

}  // namespace
