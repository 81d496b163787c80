#pragma once

#include <yaml-cpp/yaml.h>

#include "report.hpp"

namespace trn::pcluster {

// The validators that go beyond the schema's shape, each over the whole parsed config. They
// read defensively: a value of the wrong shape was already reported by the schema check and is
// skipped here.

// Scheduler slurm with at least one queue, each with at least one compute resource.
void check_scheduling(const YAML::Node& root, Report& report);

// Queue and compute-resource names: ^[a-z][a-z0-9-]*$, at most 25 characters, unique.
void check_resource_names(const YAML::Node& root, Report& report);

// Each compute resource: exactly one of InstanceType/Instances, MinCount <= MaxCount.
void check_compute_resources(const YAML::Node& root, Report& report);

// EFA on where the Trainium instance has it, off where it has none, and a placement group
// wherever EFA is on.
void check_efa(const YAML::Node& root, Report& report);

// Compute-resource instance types that trn-slurm has no facts for (topology/instance_facts.hpp),
// most likely typos (trn1.32xlarg): warnings, or errors when `as_errors`.
void check_instance_types(const YAML::Node& root, bool as_errors, Report& report);

// FSx for Lustre SCRATCH_2/PERSISTENT (SSD) capacity: 1200 or a multiple of 2400 GiB.
void check_fsx_capacity(const YAML::Node& root, Report& report);

// The head node and every queue run the trn-slurm install script on OnNodeConfigured.
void check_install_action(const YAML::Node& root, Report& report);

// The install action's training stack (--stack in its Args; auto by instance type) fits the
// queue: TorchNeuron only on trn2/trn3, and then only on Image.Os ubuntu2404.
void check_training_stack(const YAML::Node& root, Report& report);

// A CAPACITY_BLOCK queue: every compute resource names the block's CapacityReservationId and
// has MinCount = MaxCount > 0.
void check_capacity_blocks(const YAML::Node& root, Report& report);

// Values still holding a REPLACE_ME placeholder.
void check_placeholders(const YAML::Node& root, bool as_errors, Report& report);

}  // namespace trn::pcluster
