#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trn/health/check_result.hpp"

namespace trn::health {

// Across a step's nodes (one task per node): every node reaches every other on the rendezvous
// network within a deadline, measured as a small all-to-all over TCP (docs/health.md#reach).
struct ReachPeer {
  std::string node;  // the Slurm node name, for reports
  std::string host;  // what to connect to (the node name resolves on the rendezvous network)
};

struct ReachOptions {
  std::vector<ReachPeer> peers;  // every node of the step, this one included
  std::size_t self = 0;          // this node's position in peers
  std::uint16_t port = 0;        // every node listens on it (the step's rendezvous port)
  std::chrono::milliseconds deadline{5000};
  std::size_t payload_bytes = 64u << 10;  // sent to each peer and echoed back
  // Listen on this node's own host address instead of every address: lets tests run several
  // nodes in one machine (127.0.0.1, 127.0.0.2, ...). Nodes listen on every address, as a
  // host name may resolve to a loopback address locally and to the network one elsewhere.
  bool listen_on_own_host = false;
};

// "reach": FAILED naming the peers this node could not reach (or that never reached it) by the
// deadline; the evidence has the slowest round trip.
struct ReachOutcome {
  CheckResult result;
  std::vector<std::string> unreached;  // peers this node could not reach
};
ReachOutcome check_reach(const ReachOptions& options);

// Which nodes are to blame, from each node's unreached list: a node that more than half of the
// other reporting nodes could not reach (at least two of them), so one broken link or a
// two-node step names nobody. Nodes in `all` without a report are not judged here.
std::vector<std::string> unreachable_nodes(
    const std::vector<std::string>& all,
    const std::map<std::string, std::vector<std::string>>& unreached_by_node);

}  // namespace trn::health
