#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trn::forecast {

// What the forecast assumes about one node of an instance type (docs/planner.md#hardware).
struct NodeHardware {
  std::string instance_type;
  std::int64_t workers = 0;                  // NeuronCores: one worker each
  double peak_flops_per_worker = 0;          // dense bf16
  double memory_bytes_per_s_per_worker = 0;  // device memory bandwidth, the optimizer's bound
  double intra_node_bytes_per_s = 0;         // NeuronLink, device to device
  std::int64_t workers_per_device = 1;       // NeuronCores sharing a device's NeuronLink
  double inter_node_bytes_per_s = 0;         // EFA, the whole node
  double latency_s = 0;                      // per ring step of a collective across nodes
  double price_on_demand = 0;                // USD per node-hour
  double price_reserved = 0;                 // USD per node-hour, 1-year reservation
  std::string price_source;
};

// The published figures of a trn1.32xlarge or trn1n.32xlarge; nullopt for other types (their
// training has no published calibration here).
std::optional<NodeHardware> node_hardware(std::string_view instance_type);

}  // namespace trn::forecast
