#include "trn/run/requeue_decision.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using trn::plan::RequeuePolicy;
using trn::run::AfterFailure;
using trn::run::decide_after_failure;
using trn::run::FailedRun;
using trn::run::FailureKind;

FailedRun failed(FailureKind kind, RequeuePolicy policy, unsigned restarts, std::int64_t max) {
  FailedRun run;
  run.diagnosis.kind = kind;
  run.diagnosis.summary = "rank 3 on n2 vanished";
  run.diagnosis.exception = "ValueError: bad batch";
  run.diagnosis.excerpt = "Traceback ...\nValueError: bad batch\n";
  run.policy = policy;
  run.job_id = 42;
  run.restart_count = restarts;
  run.max_restarts = max;
  run.run_dir = "/fsx/runs/bert-42";
  return run;
}

// The decision for `run` is `action`, said in `message`.
void expect_decision(const FailedRun& run, AfterFailure action, const std::string& message) {
  const auto decision = decide_after_failure(run);
  EXPECT_EQ(decision.action, action);
  EXPECT_EQ(decision.message, message);
}

TEST(RequeueDecision, ANodeFailureWithRestartsLeftIsRequeued) {
  expect_decision(failed(FailureKind::kNodeFailure, RequeuePolicy::kNodeFailure, 1, 3),
                  AfterFailure::kRequeue,
                  "trn-run: training failed: rank 3 on n2 vanished\n"
                  "trn-run: requeueing job 42 (restart 2 of 3); it resumes from the newest "
                  "checkpoint in /fsx/runs/bert-42\n");
}

TEST(RequeueDecision, NoRestartLeftFailsAsANodeFailure) {
  expect_decision(failed(FailureKind::kNodeFailure, RequeuePolicy::kNodeFailure, 3, 3),
                  AfterFailure::kFailNodeFailure,
                  "trn-run: training failed: rank 3 on n2 vanished\n"
                  "trn-run: no restart left (3 of 3 used); not requeueing\n");
}

TEST(RequeueDecision, PolicyNeverNeverRequeues) {
  expect_decision(failed(FailureKind::kNodeFailure, RequeuePolicy::kNever, 0, 3),
                  AfterFailure::kFailNodeFailure,
                  "trn-run: training failed: rank 3 on n2 vanished\n");
}

TEST(RequeueDecision, AUserErrorFailsAtOnceWithTheTraceback) {
  for (const auto policy : {RequeuePolicy::kNodeFailure, RequeuePolicy::kNever}) {
    expect_decision(failed(FailureKind::kUserError, policy, 0, 3), AfterFailure::kFailUserError,
                    "trn-run: training failed on every rank with the same error:\n"
                    "  ValueError: bad batch\nfirst failing rank's traceback:\n"
                    "Traceback ...\nValueError: bad batch\n");
  }
}

TEST(RequeueDecision, PolicyAlwaysRequeuesAUserErrorWhileRestartsAreLeft) {
  auto decision =
      decide_after_failure(failed(FailureKind::kUserError, RequeuePolicy::kAlways, 0, 1));
  EXPECT_EQ(decision.action, AfterFailure::kRequeue);
  decision = decide_after_failure(failed(FailureKind::kUserError, RequeuePolicy::kAlways, 1, 1));
  EXPECT_EQ(decision.action, AfterFailure::kFailNodeFailure);
}

TEST(RequeueDecision, AStepSlurmRefusedFailsAtOnceUnderEveryPolicy) {
  for (const auto policy :
       {RequeuePolicy::kNodeFailure, RequeuePolicy::kNever, RequeuePolicy::kAlways}) {
    auto run = failed(FailureKind::kStepRefused, policy, 0, 3);
    run.diagnosis.summary =
        "srun: error: Unable to create step for job 42: More processors "
        "requested than permitted";
    const auto decision = decide_after_failure(run);
    EXPECT_EQ(decision.action, AfterFailure::kFailStepRefused);
    EXPECT_NE(decision.message.find("sbatch --exclusive"), std::string::npos) << decision.message;
    EXPECT_NE(decision.message.find("Not a node failure"), std::string::npos) << decision.message;
  }
}

TEST(RequeueDecision, AFullRunDirectoryFailsAtOnceUnderEveryPolicy) {
  for (const auto policy :
       {RequeuePolicy::kNodeFailure, RequeuePolicy::kNever, RequeuePolicy::kAlways}) {
    auto run = failed(FailureKind::kRunDirectoryFull, policy, 0, 3);
    run.diagnosis.summary = "run directory /fsx/runs/bert-7: its file system has 0.0 MiB free";
    const auto decision = decide_after_failure(run);
    EXPECT_EQ(decision.action, AfterFailure::kFailRunDirectoryFull);
    EXPECT_EQ(decision.message.rfind("trn-run: run directory /fsx/runs/bert-7: its file", 0), 0U)
        << decision.message;
    EXPECT_NE(decision.message.find("Not a node failure"), std::string::npos) << decision.message;
  }
}

}  // namespace
