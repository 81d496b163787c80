#include "trn/run/batch_host_watch.hpp"

#include <gtest/gtest.h>

namespace {

using trn::run::BatchHostState;
using trn::run::judge_batch_host;
using trn::run::parse_job_record;

// Slurm 22.05's `scontrol show job -o 3` on the local cluster after node 1, the batch host, was
// killed under --no-kill: excised from the job, which stays RUNNING on node 2 (shortened).
constexpr const char* kExcised =
    "JobId=3 JobName=trn-run UserId=root(0) JobState=RUNNING Reason=None Requeue=1 Restarts=0 "
    "BatchFlag=1 NodeList=ic-2 BatchHost=ic-1 NumNodes=1 NumCPUs=2 ReqNodeList=(null) "
    "ExcNodeList=(null) Command=/usr/local/bin/trn-run\n";

TEST(BatchHostWatch, ReadsTheFieldsByTheirWholeKey) {
  const auto job = parse_job_record(kExcised);
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(job->state, "RUNNING");
  EXPECT_EQ(job->batch_host, "ic-1");
  EXPECT_EQ(job->node_list, "ic-2");  // not ReqNodeList's or ExcNodeList's (null)
}

TEST(BatchHostWatch, AnErrorMessageIsNoEvidence) {
  EXPECT_FALSE(parse_job_record("slurm_load_jobs error: Invalid job id specified\n").has_value());
  EXPECT_FALSE(parse_job_record("").has_value());
  EXPECT_FALSE(parse_job_record("JobId=3 JobState=RUNNING").has_value());  // no NodeList
}

TEST(BatchHostWatch, ARunningJobWithoutItsBatchHostHasLostIt) {
  const auto job = *parse_job_record(kExcised);
  EXPECT_EQ(judge_batch_host(job, "ic-1", {"ic-2"}), BatchHostState::kLost);
  EXPECT_EQ(judge_batch_host(job, "ic-1", {"ic-1", "ic-2"}), BatchHostState::kHeld);
  // Another node excised (trn-run's recovery deals with it): the batch host is still held.
  EXPECT_EQ(judge_batch_host(job, "ic-2", {"ic-2"}), BatchHostState::kHeld);
}

TEST(BatchHostWatch, AJobThatNoLongerRunsIsNotWatched) {
  for (const char* state :
       {"COMPLETED", "COMPLETING", "PENDING", "REQUEUED", "CANCELLED", "FAILED"}) {
    auto job = *parse_job_record(kExcised);
    job.state = state;
    EXPECT_EQ(judge_batch_host(job, "ic-1", {"ic-2"}), BatchHostState::kJobOver) << state;
  }
  auto suspended = *parse_job_record(kExcised);
  suspended.state = "SUSPENDED";
  EXPECT_EQ(judge_batch_host(suspended, "ic-1", {"ic-2"}), BatchHostState::kLost);
}

}  // namespace
