#include "node_access.hpp"
#include "rules.hpp"

namespace trn::pcluster {

void check_scheduling(const YAML::Node& root, Report& report) {
  const auto scheduling = child(root, "Scheduling");
  if (!scheduling || !scheduling->IsMap()) return;  // reported by the schema check
  const auto scheduler = text_at(*scheduling, "Scheduler");
  if (scheduler && *scheduler == "awsbatch") {
    report.error(child(*scheduling, "Scheduler")->Mark(),
                 "Scheduling.Scheduler is 'awsbatch' but trn-slurm runs on Slurm: set "
                 "Scheduler: slurm and define SlurmQueues");
    return;
  }
  const auto queues = child(*scheduling, "SlurmQueues");
  if (!queues || (queues->IsSequence() && queues->size() == 0)) {
    report.error(key_mark(root, "Scheduling").value_or(scheduling->Mark()),
                 "Scheduling has no SlurmQueues: add at least one queue of Trainium nodes");
    return;
  }
  for (const auto& queue : slurm_queues(root)) {
    const auto resources = child(queue.node, "ComputeResources");
    if (!resources || (resources->IsSequence() && resources->size() == 0)) {
      report.error(queue.mark, queue.label("queue") +
                                   " has no ComputeResources: add at least one with an "
                                   "InstanceType and MaxCount");
    }
  }
}

}  // namespace trn::pcluster
