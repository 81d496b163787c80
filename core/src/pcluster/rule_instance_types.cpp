#include <string>

#include "node_access.hpp"
#include "placeholder.hpp"
#include "rules.hpp"
#include "trn/pcluster/node_features.hpp"

namespace trn::pcluster {

void check_instance_types(const YAML::Node& root, bool as_errors, Report& report) {
  for (const auto& queue : slurm_queues(root)) {
    for (const auto& resource : compute_resources(queue)) {
      for (const auto& [type, mark] : instance_types(resource)) {
        if (is_placeholder(type)) continue;
        const auto problem = instance_type_problem(type);
        if (!problem) continue;
        std::string message = "instance type '" + type + "' of " +
                              resource.label("compute resource") + " " + *problem;
        if (as_errors) {
          report.error(mark, std::move(message));
        } else {
          report.warning(mark, std::move(message));
        }
      }
    }
  }
}

}  // namespace trn::pcluster
