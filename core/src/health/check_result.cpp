#include "trn/health/check_result.hpp"

#include <cstdio>

#include "trn/common/error.hpp"

namespace trn::health {

std::string_view status_name(CheckStatus status) {
  switch (status) {
    case CheckStatus::kOk:
      return "ok";
    case CheckStatus::kFailed:
      return "FAILED";
    case CheckStatus::kWarning:
      return "warning";
    case CheckStatus::kSkipped:
      return "skipped";
  }
  return "?";
}

namespace {

CheckStatus status_from_name(const std::string& name) {
  for (auto status :
       {CheckStatus::kOk, CheckStatus::kFailed, CheckStatus::kWarning, CheckStatus::kSkipped}) {
    if (status_name(status) == name) return status;
  }
  throw Error("unknown check status '" + name +
              "' in trn-health output: are trn-health and "
              "trn-run from the same install?");
}

// Evidence quotes what the node's files hold (a damaged sysfs attribute, a kernel log line),
// which need not be UTF-8, and JSON strings must be: dump() would throw and trn-health --json
// crash. Each invalid byte becomes U+FFFD, as nlohmann's own replacing serializer has it.
std::string valid_utf8(const std::string& text) {
  const auto quoted =
      nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

}  // namespace

bool NodeHealth::healthy() const { return first_failure() == nullptr; }

const CheckResult* NodeHealth::first_failure() const {
  for (const auto& check : checks) {
    if (check.status == CheckStatus::kFailed) return &check;
  }
  return nullptr;
}

std::string drain_reason(const CheckResult& failure) {
  std::string reason = std::string(kDrainPrefix) + failure.check + ": " + failure.evidence;
  for (char& c : reason) {
    if (c == '"' || c == '\'' || c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (reason.size() > kMaxReasonBytes) reason = reason.substr(0, kMaxReasonBytes - 3) + "...";
  return reason;
}

nlohmann::json to_json(const NodeHealth& health) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& check : health.checks) {
    checks.push_back({{"check", check.check},
                      {"status", status_name(check.status)},
                      {"evidence", valid_utf8(check.evidence)},
                      {"seconds", check.seconds}});
  }
  nlohmann::json unreached = nlohmann::json::array();
  for (const auto& node : health.unreached) unreached.push_back(valid_utf8(node));
  return {{"node", valid_utf8(health.node)},
          {"healthy", health.healthy()},
          {"checks", checks},
          {"unreached", unreached}};
}

NodeHealth node_health_from_json(const nlohmann::json& json) {
  try {
    NodeHealth health;
    health.node = json.at("node").get<std::string>();
    for (const auto& check : json.at("checks")) {
      health.checks.push_back({check.at("check").get<std::string>(),
                               status_from_name(check.at("status").get<std::string>()),
                               check.at("evidence").get<std::string>(),
                               check.at("seconds").get<double>()});
    }
    if (json.contains("unreached"))
      health.unreached = json.at("unreached").get<std::vector<std::string>>();
    return health;
  } catch (const nlohmann::json::exception& error) {
    throw Error(std::string("unexpected trn-health output (") + error.what() +
                "): are trn-health and trn-run from the same install?");
  }
}

std::string render_text(const NodeHealth& health) {
  std::string out;
  for (const auto& check : health.checks) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3fs", check.seconds);
    out += health.node + " " + check.check + " " + std::string(status_name(check.status)) + " " +
           seconds + (check.evidence.empty() ? "" : " " + check.evidence) + "\n";
  }
  return out;
}

}  // namespace trn::health
