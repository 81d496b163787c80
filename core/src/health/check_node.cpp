#include <chrono>
#include <functional>

#include "trn/health/node_checks.hpp"
#include "trn/topology/node_identity.hpp"

namespace trn::health {
namespace {

// The check's seconds, by the options' clock (the one its budget is counted on).
CheckResult timed(const TimeSource& now, const std::function<CheckResult()>& check) {
  const auto start = now();
  CheckResult result = check();
  result.seconds = std::chrono::duration<double>(now() - start).count();
  return result;
}

}  // namespace

NodeCheckRun check_node(const NodeCheckOptions& options, const std::string& node) {
  NodeCheckRun run;
  run.health.node = node;
  run.observed.boot_id = topology::read_boot_id(options.fsroot);
  Expected expected;
  run.health.checks.push_back(timed(options.now, [&] {
    expected = expected_for(options.fsroot);
    return check_neuron_devices(options, expected);
  }));
  run.health.checks.push_back(
      timed(options.now, [&] { return check_error_counters(options, run.observed.counters); }));
  run.health.checks.push_back(timed(
      options.now, [&] { return check_kernel_log(options, run.observed.kernel_log_sequence); }));
  run.health.checks.push_back(timed(options.now, [&] { return check_efa(options, expected); }));
  run.health.checks.push_back(timed(
      options.now, [&] { return check_efa_errors(options, expected, run.observed.counters); }));
  run.health.checks.push_back(timed(options.now, [&] { return check_cache_tier(options); }));
  return run;
}

}  // namespace trn::health
