#pragma once

#include <string>
#include <string_view>

namespace trn {

// This machine's Slurm node name: SLURMD_NODENAME (slurmd sets it for tasks and its scripts),
// else the host name up to its first dot (what Slurm's NodeName usually is).
std::string this_node_name();

// `text` with every "%n" replaced by `node`, Slurm's own spelling in slurm.conf paths
// (SlurmdSpoolDir=/var/spool/slurmd/%n): one fixture tree per node of a local cluster.
std::string expand_node_name(std::string_view text, std::string_view node);

}  // namespace trn
