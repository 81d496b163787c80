#include "trn/forecast/node_hardware.hpp"

namespace trn::forecast {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Neuron's Trn1/Trn1n architecture page: 3,040 dense bf16 TFLOPS, 13,120 GiB/s of device
// memory bandwidth, NeuronLink-v2 384 (trn1n: 768) GiB/s per device, EFA 800 (1,600) Gbps;
// 32 NeuronCores. Prices: on demand per docs/planner.md#prices.
NodeHardware trn1(std::string_view type, double neuronlink_gib, double efa_gbps, double on_demand,
                  double reserved) {
  NodeHardware hw;
  hw.instance_type = std::string(type);
  hw.workers = 32;
  hw.peak_flops_per_worker = 3040e12 / 32;
  hw.memory_bytes_per_s_per_worker = 13120 * kGiB / 32;
  hw.intra_node_bytes_per_s = neuronlink_gib * kGiB;
  hw.workers_per_device = 2;
  hw.inter_node_bytes_per_s = efa_gbps * 1e9 / 8;
  hw.latency_s = 20e-6;
  hw.price_on_demand = on_demand;
  hw.price_reserved = reserved;
  hw.price_source = "us-east-1 Linux, docs/planner.md#prices";
  return hw;
}

}  // namespace

std::optional<NodeHardware> node_hardware(std::string_view instance_type) {
  if (instance_type == "trn1.32xlarge") return trn1(instance_type, 384, 800, 21.50, 12.60);
  if (instance_type == "trn1n.32xlarge") return trn1(instance_type, 768, 1600, 24.78, 14.52);
  return std::nullopt;
}

}  // namespace trn::forecast
