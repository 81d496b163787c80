#pragma once

namespace trn::launcher {

// The exit codes of every tool (trn-run, trn-compile, trn-topo, trn-cache, trn-cluster), as
// documented in each tool's --help and man page: the values never change. A tool uses the
// subset it documents; 2 means bad input for all of them.
enum ExitCode : int {
  kSuccess = 0,
  kUserError = 1,        // trn-run: training failed with the same exception on every rank
  kConfigHasErrors = 1,  // trn-cluster check: a config has errors (warnings alone are 0)
  kUnhealthy = 1,        // trn-health: a check found a fault (warnings alone are 0)
  kBadInput = 2,         // usage, profile, plan, environment, topology, cache or I/O error
  kCompileFailed = 3,    // trn-run, trn-compile: neuron_parallel_compile reported failed graphs
  kTimedOut = 3,         // trn-health: stopped at its --time-limit before deciding (no drain)
  kRequeued = 4,         // trn-run: a node failed; the job was requeued and will resume
  kNodeFailure = 5,      // trn-run: a node failed and no restart is left (or requeue is off)
};

}  // namespace trn::launcher
