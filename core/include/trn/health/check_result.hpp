#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace trn::health {

enum class CheckStatus {
  kOk,       // the check ran and found the node healthy
  kFailed,   // the check ran and found a fault: the node is unhealthy (and may be drained)
  kWarning,  // the check could not run or could not decide: reported, never a reason to drain
  kSkipped,  // nothing to check on this node (no EFA expected, no cache tier configured)
};
std::string_view status_name(CheckStatus status);  // "ok", "FAILED", "warning", "skipped"

struct CheckResult {
  std::string check;  // "neuron-devices", "ecc-counters", ...: names the check in reasons
  CheckStatus status = CheckStatus::kOk;
  std::string evidence;  // what was seen: device, counter and value; why it could not run
  double seconds = 0;    // how long the check took
};

struct NodeHealth {
  std::string node;
  std::vector<CheckResult> checks;
  std::vector<std::string> unreached;  // --step: the peers this node could not reach

  bool healthy() const;  // no check failed (warnings do not count)
  const CheckResult* first_failure() const;
};

// The reason a node is drained with: "trn-health: <check>: <evidence>". The prefix is fixed so
// that operators, trn-health --slurm and ParallelCluster tooling can select the nodes it
// drained; at most kMaxReasonBytes, with quotes and line breaks replaced (scontrol argument).
inline constexpr std::string_view kDrainPrefix = "trn-health: ";
inline constexpr std::size_t kMaxReasonBytes = 200;
std::string drain_reason(const CheckResult& failure);

nlohmann::json to_json(const NodeHealth& health);
NodeHealth node_health_from_json(const nlohmann::json& json);  // throws trn::Error

// One line per check: "<node> <check> <status> <seconds> <evidence>".
std::string render_text(const NodeHealth& health);

}  // namespace trn::health
