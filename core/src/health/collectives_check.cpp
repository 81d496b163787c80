// An all-reduce over the node's NeuronCores with Neuron's nccom-test (docs/health.md
// #collectives): the devices, the runtime and the collectives between the node's devices work
// together, at a bus bandwidth above the floor, which neither sysfs nor neuron-ls show.
#include "trn/common/error.hpp"
#include "trn/common/process.hpp"
#include "trn/health/collectives.hpp"

namespace trn::health {
namespace {

using namespace std::chrono_literals;

constexpr const char* kCollectivesCheckName = "collectives";
// Less than this left of the budget: not worth starting (the runtime alone needs longer).
constexpr auto kLeastTime = 1000ms;

CheckResult run(const CollectivesOptions& options) {
  if (options.ranks == 0) {
    return {kCollectivesCheckName, CheckStatus::kSkipped,
            "no Neuron devices: nothing to all-reduce"};
  }
  if (!options.nccom_test) {
    return {kCollectivesCheckName, CheckStatus::kSkipped,
            "nccom-test not installed (aws-neuronx-tools): the NeuronCores' collectives not run"};
  }
  const auto left = time_left(options.deadline, options.now);
  if (left < kLeastTime) {
    return {kCollectivesCheckName, CheckStatus::kWarning,
            "nccom-test not run: the node check's 10 s budget is spent"};
  }
  ProcessOptions process;
  process.stdin_dev_null = true;
  process.stderr_to = StderrTo::kOutput;
  // No budget (deadline max()): no timeout, where capture_process's deadline would overflow.
  if (left != std::chrono::milliseconds::max()) process.timeout = left;
  process.own_process_group = true;  // its neuron-bench processes go with it
  CapturedProcess ran;
  try {
    ran = options.run_tool(nccom_test_command(*options.nccom_test, options.ranks), process);
  } catch (const Error& error) {
    return {kCollectivesCheckName, CheckStatus::kWarning, error.what()};
  }
  if (ran.timed_out) {
    return {kCollectivesCheckName, CheckStatus::kWarning,
            "nccom-test did not finish within " + std::to_string(left.count()) +
                " ms, what was left of the node check's 10 s"};
  }
  return judge_nccom_test(ran.output, ran.status, options.ranks, options.min_busbw);
}

}  // namespace

std::vector<std::string> nccom_test_command(const std::filesystem::path& nccom_test,
                                            unsigned ranks) {
  const auto bytes = std::to_string(kAllReduceBytes);
  // --check last: newer versions take an optional mode after it, older ones none.
  return {nccom_test.string(),
          "-r",
          std::to_string(ranks),
          "-b",
          bytes,
          "-e",
          bytes,
          "-n",
          "5",
          "-w",
          "1",
          "-d",
          "fp32",
          "allr",
          "--check"};
}

CheckResult check_collectives(const CollectivesOptions& options) {
  const auto start = options.now();
  CheckResult result = run(options);
  result.seconds = std::chrono::duration<double>(options.now() - start).count();
  return result;
}

}  // namespace trn::health
