#pragma once

#include <optional>
#include <string>

namespace trn {

// The IPv4 address of `host` as the node resolves it (/etc/hosts, then DNS), e.g. "10.0.1.17";
// std::nullopt with `why` set when it has none. NEURON_RT_ROOT_COMM_ID takes an address, and
// resolving once per step keeps the name service out of every task's start.
std::optional<std::string> resolve_ipv4(const std::string& host, std::string* why = nullptr);

}  // namespace trn
