#include "trn/run/requeue_decision.hpp"

#include <gtest/gtest.h>

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

TEST(RequeueDecision, ANodeFailureWithRestartsLeftIsRequeued) {
  const auto decision =
      decide_after_failure(failed(FailureKind::kNodeFailure, RequeuePolicy::kNodeFailure, 1, 3));
  EXPECT_EQ(decision.action, AfterFailure::kRequeue);
  EXPECT_EQ(decision.message,
            "trn-run: training failed: rank 3 on n2 vanished\n"
            "trn-run: requeueing job 42 (restart 2 of 3); it resumes from the newest checkpoint "
            "in /fsx/runs/bert-42\n");
}

TEST(RequeueDecision, NoRestartLeftFailsAsANodeFailure) {
  const auto decision =
      decide_after_failure(failed(FailureKind::kNodeFailure, RequeuePolicy::kNodeFailure, 3, 3));
  EXPECT_EQ(decision.action, AfterFailure::kFailNodeFailure);
  EXPECT_EQ(decision.message,
            "trn-run: training failed: rank 3 on n2 vanished\n"
            "trn-run: no restart left (3 of 3 used); not requeueing\n");
}

TEST(RequeueDecision, PolicyNeverNeverRequeues) {
  const auto decision =
      decide_after_failure(failed(FailureKind::kNodeFailure, RequeuePolicy::kNever, 0, 3));
  EXPECT_EQ(decision.action, AfterFailure::kFailNodeFailure);
  EXPECT_EQ(decision.message, "trn-run: training failed: rank 3 on n2 vanished\n");
}

TEST(RequeueDecision, AUserErrorFailsAtOnceWithTheTraceback) {
  for (const auto policy : {RequeuePolicy::kNodeFailure, RequeuePolicy::kNever}) {
    const auto decision = decide_after_failure(failed(FailureKind::kUserError, policy, 0, 3));
    EXPECT_EQ(decision.action, AfterFailure::kFailUserError);
    EXPECT_EQ(decision.message,
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

}  // namespace
