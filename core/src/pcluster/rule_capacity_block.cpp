// A queue with CapacityType CAPACITY_BLOCK runs an EC2 Capacity Block's instances, which
// ParallelCluster manages as static nodes: each compute resource needs the block's
// CapacityReservationId and MinCount = MaxCount > 0 (docs/hardware.md#capacity-blocks).
#include "node_access.hpp"
#include "rules.hpp"

namespace trn::pcluster {

void check_capacity_blocks(const YAML::Node& root, Report& report) {
  for (const auto& queue : slurm_queues(root)) {
    if (text_at(queue.node, "CapacityType").value_or("") != "CAPACITY_BLOCK") continue;
    const bool queue_reservation =
        descend(queue.node, {"CapacityReservationTarget", "CapacityReservationId"}).has_value();
    for (const auto& resource : compute_resources(queue)) {
      const std::string who = resource.label("compute resource");
      if (!queue_reservation &&
          !descend(resource.node, {"CapacityReservationTarget", "CapacityReservationId"})) {
        report.error(resource.mark, who + " of Capacity Block " + queue.label("queue") +
                                        " names no block: add CapacityReservationTarget: "
                                        "CapacityReservationId: cr-... (the block's id)");
      }
      const auto min_count = integer_at(resource.node, "MinCount").value_or(0);
      const auto max_count = integer_at(resource.node, "MaxCount").value_or(10);
      if (min_count != max_count || max_count <= 0) {
        report.error(
            key_mark(resource.node, "MinCount").value_or(resource.mark),
            who + " of Capacity Block " + queue.label("queue") + " has MinCount " +
                std::to_string(min_count) + " and MaxCount " + std::to_string(max_count) +
                ": a block's instances are static nodes, set both to the block's instance count");
      }
    }
  }
}

}  // namespace trn::pcluster
