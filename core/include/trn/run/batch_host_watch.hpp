#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trn::run {

// trn-run runs in the batch script, on the job's batch host (the node of rank 0). Its #SBATCH
// header asks for --no-kill, so that a lost node leaves the allocation to trn-run's recovery;
// but Slurm then excises ANY failed node from a multi-node job and keeps the job running, the
// batch host included (slurmctld's kill_running_job_by_node_name: kill_on_node_fail == 0 and
// node_cnt > 1). The batch script dies with its node and the job would stay RUNNING, every other
// node idle and paid for, until its time limit. A watcher on another node of the job sees the
// batch host leave the job and requeues or cancels it (docs/recovery.md#batch-host).

// The fields of one `scontrol show job -o ID` line the watcher reads.
struct JobRecord {
  std::string state;       // JobState=, e.g. RUNNING
  std::string batch_host;  // BatchHost=
  std::string node_list;   // NodeList=, a compressed hostlist: the nodes the job holds now
};

// nullopt when the line lacks JobState= or NodeList= (an error message, another version's
// shape): no evidence either way.
std::optional<JobRecord> parse_job_record(std::string_view scontrol_line);

enum class BatchHostState {
  kHeld,     // the job runs and still holds its batch host
  kLost,     // the job runs without its batch host: trn-run is gone with it
  kJobOver,  // the job no longer runs (completed, requeued, cancelled): nothing to watch
};

// `held_nodes`: the record's NodeList expanded (scontrol show hostnames).
BatchHostState judge_batch_host(const JobRecord& job, std::string_view batch_host,
                                const std::vector<std::string>& held_nodes);

}  // namespace trn::run
