#include "trn/plan/instance_cores.hpp"

#include "trn/common/error.hpp"
#include "trn/pcluster/node_features.hpp"
#include "trn/topology/instance_maps.hpp"

namespace trn::plan {

std::int64_t planned_neuron_cores(const std::string& instance_type, const std::string& source,
                                  unsigned trn2_lnc) {
  if (const auto problem = pcluster::instance_type_problem(instance_type)) {
    throw Error("instance type '" + instance_type + "' (" + source + ") " + *problem);
  }
  return topology::documented_neuron_cores(instance_type, trn2_lnc).value_or(0);
}

}  // namespace trn::plan
