#pragma once

#include <string>
#include <vector>

#include "install_layout.hpp"
#include "trn/plan/plan.hpp"
#include "trn/run/slurm_allocation.hpp"

namespace trn::launcher {

// Starts, in the background, a one-task step on the job's last node (not this one, the batch
// host) that watches the job for the loss of its batch host (trn/run/batch_host_watch.hpp) and
// then requeues or cancels the job as trn-run itself would have. Nothing for a one-node job.
// The step ends with the job; when it ends before (its node lost, srun refused), a thread of
// trn-run starts it again on another node the job holds. srun's own messages go to the run
// directory's logs/batch_host_watch.srun.log.
void start_batch_host_watch(const run::SlurmAllocation& allocation,
                            const std::vector<std::string>& job_nodes, const plan::Plan& plan,
                            const InstallLayout& layout);

// trn-launcher watch-batch-host --job ID --batch-host NODE --requeue POLICY --restart-count N
//   --max-restarts M --run-dir DIR [--interval-ms MS]: the watcher itself; what it did goes to
//   DIR/logs/batch_host_watch.log.
int watch_batch_host_command(const std::vector<std::string>& args);

}  // namespace trn::launcher
