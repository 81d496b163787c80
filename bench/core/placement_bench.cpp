// Speed targets of the SPANK plugin's work: per task < 200 us with the placement computed; per
// step (discovery and placement) < 20 ms. Run: <build>/bench/core/core_bench

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "trn/placement/placement.hpp"
#include "trn/taskenv/task_environment.hpp"
#include "trn/topology/discover.hpp"
#include "trn/topology/topology_cache.hpp"

namespace {

using namespace trn;

std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(TRN_FIXTURES_DIR) / name;
}

struct Step {
  topology::NodeTopology topology;
  placement::StepPlacement placement;
  taskenv::StepEnvironment environment;
};

placement::PlacementRequest request_for(unsigned tasks) {
  placement::PlacementRequest request;
  request.local_tasks = tasks;
  request.allowed_cores = IdList::range(0, 48);  // a typical S_STEP_ALLOC_CORES restriction
  return request;
}

taskenv::StepFacts facts_for(unsigned tasks) {
  taskenv::StepFacts facts;
  facts.job_id = 4242;
  facts.step_id = 1;
  facts.nnodes = 4;
  facts.node_id = 2;
  facts.local_task_count = tasks;
  facts.total_task_count = 4 * tasks;
  facts.first_host = "trn-st-001";
  facts.node_name = "trn-st-003";
  return facts;
}

Step prepare(const std::string& tree, unsigned tasks) {
  Step step;
  topology::DiscoveryOptions options;
  options.fsroot = fixture(tree);
  step.topology = topology::discover(options);
  step.placement = placement::place_step(step.topology, request_for(tasks));
  taskenv::EnvOptions env;
  env.compile_cache = "/var/tmp/neuron-compile-cache/alice";
  step.environment =
      taskenv::prepare_step_environment(step.topology, step.placement, facts_for(tasks), env);
  return step;
}

// The user's environment as slurmstepd would hold it: ~40 variables, a few of ours among them.
const std::map<std::string, std::string>& user_environment() {
  static const std::map<std::string, std::string> env = [] {
    std::map<std::string, std::string> e;
    for (int i = 0; i < 36; ++i) e["SLURM_VAR_" + std::to_string(i)] = "value";
    e["NEURON_CC_FLAGS"] = "--model-type=transformer";
    e["PATH"] = "/usr/bin:/bin";
    e["FI_PROVIDER"] = "efa";
    return e;
  }();
  return env;
}

void per_task_environment(benchmark::State& state, const std::string& tree, unsigned tasks) {
  const Step step = prepare(tree, tasks);
  const taskenv::EnvLookup lookup = [](const std::string& name) -> std::optional<std::string> {
    const auto& env = user_environment();
    const auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  unsigned task = 0;
  for (auto _ : state) {
    auto env = taskenv::task_environment(step.environment, {task, 2 * tasks + task}, lookup);
    benchmark::DoNotOptimize(env);
    task = (task + 1) % tasks;
  }
}

// What a step pays without a cache: discovery from the tree (hwloc included) and placement.
void discovery_and_placement(benchmark::State& state, const std::string& tree, unsigned tasks) {
  topology::DiscoveryOptions options;
  options.fsroot = fixture(tree);
  for (auto _ : state) {
    const auto topology = topology::discover(options);
    auto placement = placement::place_step(topology, request_for(tasks));
    auto env = taskenv::prepare_step_environment(topology, placement, facts_for(tasks), {});
    benchmark::DoNotOptimize(env);
  }
}

// What a step pays with the per-boot cache: read and validate it, then placement.
void cached_topology_and_placement(benchmark::State& state, const std::string& tree,
                                   unsigned tasks) {
  char dir_template[] = "/tmp/trn-bench-XXXXXX";
  const std::filesystem::path dir = ::mkdtemp(dir_template);
  topology::DiscoveryOptions options;
  options.fsroot = fixture(tree);
  const auto cache = dir / "topology.json";
  topology::discover_cached(options, cache);
  for (auto _ : state) {
    const auto result = topology::discover_cached(options, cache);
    if (!result.from_cache) state.SkipWithError("cache not used");
    auto placement = placement::place_step(result.topology, request_for(tasks));
    auto env = taskenv::prepare_step_environment(result.topology, placement, facts_for(tasks), {});
    benchmark::DoNotOptimize(env);
  }
  std::filesystem::remove_all(dir);
}

// Each benchmark runs on a trn1.32xlarge and a trn2.48xlarge node with 16 tasks.
struct StepBenchmark {
  const char* name;
  void (*run)(benchmark::State&, const std::string& tree, unsigned tasks);
  benchmark::TimeUnit unit;
};

constexpr StepBenchmark step_benchmarks[] = {
    {"per_task_environment", per_task_environment, benchmark::kMicrosecond},
    {"discovery_and_placement", discovery_and_placement, benchmark::kMillisecond},
    {"cached_topology_and_placement", cached_topology_and_placement, benchmark::kMillisecond},
};

// "per_task_environment/trn1_32xlarge_16_tasks", as BENCHMARK_CAPTURE would name it.
void register_step_benchmarks() {
  for (const auto& bench : step_benchmarks) {
    for (const std::string tree : {"trn1.32xlarge", "trn2.48xlarge"}) {
      std::string label = tree;
      std::replace(label.begin(), label.end(), '.', '_');
      const std::string name = std::string(bench.name) + "/" + label + "_16_tasks";
      benchmark::RegisterBenchmark(name.c_str(), bench.run, tree, 16u)->Unit(bench.unit);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_step_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
