#pragma once

#include <set>
#include <string>
#include <string_view>

namespace trn::run {

// The nodes slurmctld itself no longer reaches, from `sinfo -h -N -o '%N %T'` ("NODE STATE" per
// line): states DOWN or FAIL, or any state with sinfo's '*' suffix (NOT_RESPONDING: slurmd
// missed slurmctld's pings). Lines in any other shape are skipped: this only ever adds
// evidence that a node is gone, so a line it cannot read never drains a node.
std::set<std::string> unreachable_by_slurm(std::string_view sinfo_output);

}  // namespace trn::run
