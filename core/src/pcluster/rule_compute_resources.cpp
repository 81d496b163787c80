#include "node_access.hpp"
#include "rules.hpp"

namespace trn::pcluster {
namespace {

// ParallelCluster's defaults when the keys are absent (constants.py).
constexpr long long default_min_count = 0;
constexpr long long default_max_count = 10;

void check_instance_choice(const Item& resource, Report& report) {
  const bool has_type = key_mark(resource.node, "InstanceType").has_value();
  const auto instances_key = key_mark(resource.node, "Instances");
  if (has_type && instances_key) {
    report.error(*instances_key, resource.label("compute resource") +
                                     " sets both InstanceType and Instances: keep exactly one");
  } else if (!has_type && !instances_key) {
    report.error(resource.mark, resource.label("compute resource") +
                                    " needs InstanceType (e.g. trn1.32xlarge) or Instances");
  }
}

void check_counts(const Item& resource, Report& report) {
  const auto min_count = integer_at(resource.node, "MinCount");
  const auto max_count = integer_at(resource.node, "MaxCount");
  const long long min_value = min_count.value_or(default_min_count);
  const long long max_value = max_count.value_or(default_max_count);
  if (min_value <= max_value) return;
  const auto at = key_mark(resource.node, "MinCount").value_or(resource.mark);
  report.error(at, resource.label("compute resource") + " has MinCount " +
                       std::to_string(min_value) + " greater than MaxCount " +
                       std::to_string(max_value) + (max_count ? "" : " (the default)") +
                       ": MinCount must not exceed MaxCount");
}

}  // namespace

void check_compute_resources(const YAML::Node& root, Report& report) {
  for (const auto& queue : slurm_queues(root)) {
    for (const auto& resource : compute_resources(queue)) {
      check_instance_choice(resource, report);
      check_counts(resource, report);
    }
  }
}

}  // namespace trn::pcluster
