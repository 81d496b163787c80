// What a step's tasks print, read back by trn-run and trn-health: srun --label output and the
// failure diagnosis over it, heartbeat lines, Neuron runtime statuses, trn-health's per-node
// JSON reports, neuron_parallel_compile's log and `neuronx-cc --version`.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "trn/cache/compiler_version.hpp"
#include "trn/cache/npc_summary.hpp"
#include "trn/common/error.hpp"
#include "trn/health/check_result.hpp"
#include "trn/health/step_reports.hpp"
#include "trn/health/step_verdict.hpp"
#include "trn/run/failure_diagnosis.hpp"
#include "trn/run/heartbeat.hpp"
#include "trn/run/neuron_hardware_status.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const auto expected_ranks = input.ConsumeIntegralInRange<unsigned>(0, 64);
  const auto exit_status = input.ConsumeIntegralInRange<int>(-64, 255);
  std::vector<std::string> nodes;
  for (auto count = input.ConsumeIntegralInRange(0, 4); count > 0; --count) {
    nodes.push_back("node" + std::to_string(count));
  }
  const std::string output = input.ConsumeRemainingBytesAsString();

  try {
    const auto ranks = trn::run::split_labelled_output(output, "node1");
    trn::run::diagnose_training_failure(ranks, expected_ranks);
    trn::run::find_neuron_hardware_status(output);
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) trn::run::parse_heartbeat(line);

    const auto step = trn::health::read_step_reports(output, nodes);
    // The gate prints what it read: as text, and as JSON with --json.
    for (const auto& report : step.reports) {
      trn::health::render_text(report);
      trn::health::to_json(report).dump();
    }
    trn::health::judge_step_reports(nodes, step.reports, step.unreadable);

    trn::cache::parse_compiler_version(output);
    trn::cache::to_json(trn::cache::interpret_npc_run(output, exit_status)).dump();
  } catch (const trn::Error&) {
  }
  return 0;
}
