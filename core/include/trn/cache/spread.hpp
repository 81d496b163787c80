#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trn/cache/transfer.hpp"

// The shared tier read once and spread node to node down a tree (docs/hardware.md#cache-spread),
// instead of every node reading the shared file system.
namespace trn::cache {

// A node's place in the spread tree of `nodes` nodes in node-id order: node 0 is the root and
// node i's children are fanout * i + 1 ... fanout * i + fanout, so the tree is about
// log_fanout(nodes) levels deep. A fanout of 0 throws trn::Error.
struct SpreadTreePosition {
  std::optional<std::size_t> parent;
  std::vector<std::size_t> children;
};
SpreadTreePosition spread_tree_position(std::size_t self, std::size_t nodes, std::size_t fanout);

struct SpreadOptions {
  std::vector<std::string> hosts;  // every node of the step, in node-id order
  std::size_t self = 0;            // this node's position in hosts
  std::uint16_t port = 0;          // every node with children listens on it
  std::size_t fanout = 2;
  std::filesystem::path shared_root;
  std::filesystem::path local_root;
  TransferOptions transfer;  // compiler version, and the jobs of the local installs
  // How long the tree may take to form (every connection made), and how long a node waits for
  // its parent's next bytes or a child's acceptance of them before it gives up on that link.
  std::chrono::milliseconds connect_timeout{20000};
  std::chrono::milliseconds idle_timeout{60000};
  // Listen on this node's own host address (tests run several nodes at 127.0.0.x).
  bool listen_on_own_host = false;
};

struct SpreadReport {
  TransferReport local;  // what landed in the local tier, whichever way it came
  std::optional<std::string> parent;
  std::vector<std::string> children;       // the children served until this node's stream ended
  std::vector<std::string> children_lost;  // children that never connected or stopped reading
  std::uintmax_t received_bytes = 0;       // file bytes that came from the parent
  std::uintmax_t shared_tier_bytes = 0;    // file bytes this node read from the shared tier
  // Why this node read the shared tier itself although it has a parent (its parent could not
  // be reached, or the stream broke); none when the tree served it.
  std::optional<std::string> fallback;
  double seconds = 0;
};

// Node 0 reads the shared tier's complete entries once and streams them to its children; every
// node forwards what it receives to its own children as it arrives (pipelined), keeps a copy in
// a private inbox folder beside its local tier and then moves that in as `pull` would copy it
// (present entries skipped, locked ones left alone, each entry renamed into place). A node whose
// parent is unreachable streams from the shared tier itself; a node whose stream breaks pulls from
// the shared tier what it lacks. So every node ends as a pull would leave it, whatever fails.
SpreadReport spread(const SpreadOptions& options);

// The pull report's fields ("copied", "present", ...) and "spread": {"parent", "children",
// "children_lost", "received_bytes", "shared_tier_bytes", "fallback", "seconds"}.
nlohmann::json to_json(const SpreadReport& report);

}  // namespace trn::cache
