#pragma once

namespace trn::launcher {

// trn-run's exit codes (documented in trn-run --help and the man page).
enum ExitCode : int {
  kSuccess = 0,
  kUserError = 1,      // training failed with the same exception on every rank
  kBadInput = 2,       // usage, profile, plan or environment error
  kCompileFailed = 3,  // neuron_parallel_compile reported failed graphs
  kRequeued = 4,       // a node failed; the job was requeued and will resume
  kNodeFailure = 5,    // a node failed and no restart is left (or requeue is off)
};

}  // namespace trn::launcher
