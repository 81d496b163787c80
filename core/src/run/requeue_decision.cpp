#include "trn/run/requeue_decision.hpp"

namespace trn::run {

RequeueDecision decide_after_failure(const FailedRun& failed) {
  const auto& diagnosis = failed.diagnosis;
  if (diagnosis.kind == FailureKind::kStepRefused) {
    return {AfterFailure::kFailStepRefused,
            "trn-run: Slurm refused to start the training step (" + diagnosis.summary +
                "): the job holds too little of its nodes for the plan; submit with sbatch "
                "--exclusive. Not a node failure: no node drained, no requeue\n"};
  }
  if (diagnosis.kind == FailureKind::kRunDirectoryFull) {
    return {
        AfterFailure::kFailRunDirectoryFull,
        "trn-run: " + diagnosis.summary + ". Not a node failure: no node drained, no requeue\n"};
  }
  if (diagnosis.kind == FailureKind::kUserError && failed.policy != plan::RequeuePolicy::kAlways) {
    return {AfterFailure::kFailUserError,
            "trn-run: training failed on every rank with the same error:\n  " +
                diagnosis.exception + "\nfirst failing rank's traceback:\n" + diagnosis.excerpt};
  }
  std::string message = "trn-run: training failed: " + diagnosis.summary + '\n';
  if (failed.policy == plan::RequeuePolicy::kNever) {
    return {AfterFailure::kFailNodeFailure, message};
  }
  if (static_cast<std::int64_t>(failed.restart_count) >= failed.max_restarts) {
    message += "trn-run: no restart left (" + std::to_string(failed.restart_count) + " of " +
               std::to_string(failed.max_restarts) + " used); not requeueing\n";
    return {AfterFailure::kFailNodeFailure, message};
  }
  message += "trn-run: requeueing job " + std::to_string(failed.job_id) + " (restart " +
             std::to_string(failed.restart_count + 1) + " of " +
             std::to_string(failed.max_restarts) + "); it resumes from the newest checkpoint in " +
             failed.run_dir.string() + '\n';
  return {AfterFailure::kRequeue, message};
}

}  // namespace trn::run
