#pragma once

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace trn::launcher {

struct ProbeLimits {
  // A live node answers within this on an idle cluster; after it, slurmctld is asked about the
  // nodes that have not answered yet.
  std::chrono::milliseconds quick{2000};
  // A node that still has not answered, and that slurmctld does not call unreachable, is lost
  // only after this: a healthy node on a loaded machine or behind a busy head node answers
  // late, and a node drained by mistake is a paid node out of service.
  std::chrono::milliseconds patience{20000};
};

// Which of `nodes` slurmctld no longer reaches (DOWN, FAIL or not responding): `sinfo`.
std::set<std::string> unreachable_by_slurmctld(const std::vector<std::string>& nodes);

// The nodes among `nodes` that are lost (their slurmd or the machine gone), each from evidence
// that is not slowness by accident: a one-task step (`true`, one srun --overlap per node, all at
// once) that fails, slurmctld calling the node unreachable (asked once a second after
// `limits.quick`), or no answer within `limits.patience`. A live node answers in a fraction of
// a second; a lost one whose slurmd is gone fails at once, without waiting for SlurmdTimeout.
std::vector<std::string> unresponsive_nodes(
    const std::vector<std::string>& nodes, const ProbeLimits& limits,
    const std::function<std::set<std::string>(const std::vector<std::string>&)>& ask_slurmctld =
        unreachable_by_slurmctld);

}  // namespace trn::launcher
