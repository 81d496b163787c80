#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "trn/plan/profile.hpp"
#include "trn/run/failure_diagnosis.hpp"

namespace trn::run {

// What trn-run does after a training step failed.
enum class AfterFailure {
  kRequeue,               // ask Slurm to requeue the job; it resumes from the newest checkpoint
  kFailUserError,         // the user's error: requeueing would fail the same way
  kFailNodeFailure,       // a node failed but the policy or the restart budget forbids a requeue
  kFailStepRefused,       // Slurm refused the step: the job's configuration (exit 2), any policy
  kFailRunDirectoryFull,  // the run directory's file system is full: the storage (exit 2)
};

struct RequeueDecision {
  AfterFailure action = AfterFailure::kFailNodeFailure;
  std::string message;  // the lines for the job log, each "trn-run: ..." and ending in '\n'
};

struct FailedRun {
  FailureDiagnosis diagnosis;
  plan::RequeuePolicy policy = plan::RequeuePolicy::kNodeFailure;
  std::uint32_t job_id = 0;
  unsigned restart_count = 0;  // SLURM_RESTART_COUNT: requeues so far
  std::int64_t max_restarts = 0;
  std::filesystem::path run_dir;  // where the checkpoints are, for the message
};

// The pure decision: a step Slurm refused, or a run directory with no room, fails at once; a user
// error fails at once unless the policy is "always"; otherwise the job is requeued while the policy
// allows it and restarts are left.
RequeueDecision decide_after_failure(const FailedRun& failed);

}  // namespace trn::run
