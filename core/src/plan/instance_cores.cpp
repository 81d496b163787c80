#include "trn/plan/instance_cores.hpp"

#include "trn/common/error.hpp"
#include "trn/pcluster/node_features.hpp"
#include "trn/topology/instance_maps.hpp"

namespace trn::plan {

std::int64_t planned_neuron_cores(const std::string& instance_type, const std::string& source,
                                  unsigned trn2_lnc) {
  if (!pcluster::is_instance_type_name(instance_type)) {
    throw Error("instance type '" + instance_type + "' (" + source +
                ") is not an EC2 instance type: write FAMILY.SIZE, e.g. trn1.32xlarge");
  }
  if (const auto cores = topology::documented_neuron_cores(instance_type, trn2_lnc)) {
    return *cores;
  }
  // Trainium and Inferentia families all carry Neuron devices: an unknown size is a mistake,
  // not a CPU node.
  if (instance_type.starts_with("trn") || instance_type.starts_with("inf")) {
    throw Error("instance type '" + instance_type + "' (" + source +
                ") is not one whose NeuronCores trn-run knows: use one of " +
                topology::documented_instance_types_text());
  }
  return 0;
}

}  // namespace trn::plan
