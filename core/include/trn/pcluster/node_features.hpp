#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace trn::pcluster {

// An EC2 instance type name: FAMILY.SIZE, e.g. trn1.32xlarge, c5.4xlarge, m7i.metal-24xl.
bool is_instance_type_name(std::string_view text);

// Why `instance_type` cannot name the compute nodes trn-slurm plans and checks for, as the end
// of a sentence ("is not an EC2 instance type: ..."): a name that is not FAMILY.SIZE, or a
// Trainium or Inferentia type without published facts (topology/instance_facts.hpp; a typo such
// as trn1.32xlarg: those families all carry Neuron devices). nullopt for a known type and any other
// well-formed type: a CPU queue (c5.4xlarge) is a valid part of a cluster.
std::optional<std::string> instance_type_problem(std::string_view instance_type);

// ParallelCluster lists each compute node's instance type among its Slurm features
// ("static,trn1.32xlarge,compute1" or "dynamic,trn1.32xlarge,compute1,efa";
// docs/hardware.md#parallelcluster). The instance type in one node's comma-separated feature
// list; nullopt when no feature is one (a cluster not made by ParallelCluster).
std::optional<std::string> instance_type_in_features(std::string_view features);

// The instance types of one partition's nodes, from `sinfo -h -o "%P %f"` output: one line per
// partition and feature set, the default partition's name ending in '*'. `partition` nullopt:
// the default partition. Empty when the partition is not listed or shows no instance type.
std::set<std::string> partition_instance_types(std::string_view sinfo_output,
                                               const std::optional<std::string>& partition);

}  // namespace trn::pcluster
