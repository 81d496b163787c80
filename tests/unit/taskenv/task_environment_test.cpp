#include "trn/taskenv/task_environment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fixtures.hpp"
#include "trn/common/error.hpp"

using namespace trn::taskenv;
using trn::placement::place_step;
using trn::placement::PlacementRequest;
using trn::test::discovered;

namespace {

using Env = std::map<std::string, std::string>;

struct Scenario {
  Scenario(const char* name) : tree(name) {}  // NOLINT: implicit on purpose, prepare({"x"})
  std::string tree;
  unsigned nnodes = 2, node_id = 1, local_tasks = 16;
  EnvOptions options;
  std::uint32_t job_id = 1234, step_id = 0;
};

StepEnvironment prepare(const Scenario& s) {
  PlacementRequest request;
  request.local_tasks = s.local_tasks;
  const auto& topology = discovered(s.tree);
  const auto placement = place_step(topology, request);
  StepFacts facts;
  facts.job_id = s.job_id;
  facts.step_id = s.step_id;
  facts.nnodes = s.nnodes;
  facts.node_id = s.node_id;
  facts.local_task_count = s.local_tasks;
  facts.total_task_count = s.nnodes * s.local_tasks;
  facts.first_host = "trn-st-001";
  facts.node_name = "trn-st-002";
  return prepare_step_environment(topology, placement, facts, s.options);
}

TaskEnvironment render(const StepEnvironment& step, unsigned local, unsigned global,
                       const Env& existing = {}) {
  return task_environment(step, {local, global}, [&](const std::string& name) {
    const auto it = existing.find(name);
    return it == existing.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
}

Env as_map(const TaskEnvironment& env) {
  Env out;
  for (const auto& var : env.set) {
    EXPECT_TRUE(out.emplace(var.name, var.value).second) << "set twice: " << var.name;
  }
  return out;
}

}  // namespace

TEST(TaskEnvironment, Trn1_32xlargeSeveralTasksPerNode) {
  const auto env = as_map(render(prepare("trn1.32xlarge"), 2, 18));
  const Env expected = {
      {"FI_PROVIDER", "efa"},
      {"FI_EFA_USE_DEVICE_RDMA", "1"},
      {"FI_EFA_FORK_SAFE", "1"},  // kernel 5.10
      {"MASTER_ADDR", "trn-st-001"},
      {"MASTER_PORT", "15680"},  // 11000 + (1234 % 1000) * 20
      {"NEURON_RT_ROOT_COMM_ID", "trn-st-001:15681"},
      {"WORLD_SIZE", "32"},
      {"LOCAL_WORLD_SIZE", "16"},
      {"NODE_RANK", "1"},
      {"RANK", "18"},
      {"LOCAL_RANK", "2"},
      {"NEURON_RT_VISIBLE_CORES", "4-5"},
      {"TRN_CPUS", "32-63,96-127"},
      {"TRN_EFA_DEVICES", "rdmap160s26"},  // a0:1a.0 serves devices 2 and 3
      {"TRN_INSTANCE_TYPE", "trn1.32xlarge"},
      // Per-core launch: the task is a worker with 2 NeuronCores, 32 workers in all.
      {"NEURON_PJRT_PROCESS_INDEX", "18"},
      {"NEURON_PJRT_PROCESSES_NUM_DEVICES",
       "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"},
      {"PJRT_LOCAL_PROCESS_COUNT", "16"},
      {"PJRT_LOCAL_PROCESS_RANK", "2"},
  };
  EXPECT_EQ(env, expected);
}

TEST(TaskEnvironment, Trn1nKernel5_15NeedsNoForkSafe) {
  const auto env = as_map(render(prepare("trn1n.32xlarge"), 0, 16));
  EXPECT_EQ(env.count("FI_EFA_FORK_SAFE"), 0u);
  EXPECT_EQ(env.at("FI_PROVIDER"), "efa");
  EXPECT_EQ(env.at("TRN_EFA_DEVICES"), "rdmap16s23");
}

TEST(TaskEnvironment, Trn2OneTaskPerNodeServesTorchrunAndAPlainWorker) {
  Scenario s{"trn2.48xlarge"};
  s.local_tasks = 1;
  const auto step = prepare(s);
  EXPECT_TRUE(step.one_task_per_node);
  const auto env = as_map(render(step, 0, 1));
  EXPECT_EQ(env.at("PET_NNODES"), "2");
  EXPECT_EQ(env.at("PET_NODE_RANK"), "1");
  EXPECT_EQ(env.at("PET_NPROC_PER_NODE"), "64");
  EXPECT_EQ(env.at("PET_MASTER_ADDR"), "trn-st-001");
  EXPECT_EQ(env.at("PET_MASTER_PORT"), env.at("MASTER_PORT"));
  EXPECT_EQ(env.at("NEURON_LOGICAL_NC_CONFIG"), "2");
  EXPECT_EQ(env.at("NEURON_RT_VISIBLE_CORES"), "0-63");
  EXPECT_EQ(env.at("TRN_CPUS"), "0-191");
  const auto& efa = env.at("TRN_EFA_DEVICES");
  EXPECT_EQ(std::count(efa.begin(), efa.end(), ','), 15);
  // The task itself may be the worker (trn-run on CPU nodes: one worker per node); torchrun
  // overrides these for the workers it starts.
  EXPECT_EQ(env.at("RANK"), "1");
  EXPECT_EQ(env.at("LOCAL_RANK"), "0");
  EXPECT_EQ(env.at("WORLD_SIZE"), "2");
  EXPECT_EQ(env.at("LOCAL_WORLD_SIZE"), "1");
  EXPECT_EQ(env.count("FI_EFA_FORK_SAFE"), 0u);
}

TEST(TaskEnvironment, TorchrunLaunchLeavesTheNeuronWorldToTorchNeuronx) {
  Scenario s{"trn1.32xlarge"};
  s.local_tasks = 1;
  s.options.launch = NeuronLaunch::kTorchrun;
  const auto env = as_map(render(prepare(s), 0, 1));
  EXPECT_EQ(env.at("NEURON_RT_VISIBLE_CORES"), "0-31");  // all of the node's cores
  EXPECT_EQ(env.at("PET_NPROC_PER_NODE"), "32");
  for (const char* name :
       {"NEURON_PJRT_PROCESS_INDEX", "NEURON_PJRT_WORLD_SIZE", "NEURON_PJRT_PROCESSES_NUM_DEVICES",
        "PJRT_LOCAL_PROCESS_COUNT", "PJRT_LOCAL_PROCESS_RANK"}) {
    EXPECT_EQ(env.count(name), 0u) << name;
  }
}

TEST(TaskEnvironment, OneCorePerTaskUsesTheShortWorldSize) {
  Scenario s{"trn1.32xlarge"};
  s.local_tasks = 32;
  const auto env = as_map(render(prepare(s), 31, 63));
  EXPECT_EQ(env.at("NEURON_PJRT_WORLD_SIZE"), "64");
  EXPECT_EQ(env.count("NEURON_PJRT_PROCESSES_NUM_DEVICES"), 0u);
  EXPECT_EQ(env.at("NEURON_PJRT_PROCESS_INDEX"), "63");
  EXPECT_EQ(env.at("PJRT_LOCAL_PROCESS_COUNT"), "32");
  EXPECT_EQ(env.at("PJRT_LOCAL_PROCESS_RANK"), "31");
  EXPECT_EQ(env.at("NEURON_RT_VISIBLE_CORES"), "31");
}

TEST(TaskEnvironment, Trn2LogicalCoresMakeTheWorld) {
  for (const auto& [lnc, cores_per_task] : {std::pair{"1", 4u}, std::pair{"2", 2u}}) {
    Scenario s{"trn2.48xlarge"};
    s.local_tasks = 32;
    PlacementRequest request;
    request.local_tasks = s.local_tasks;
    request.lnc_env = lnc;
    const auto& topology = discovered(s.tree);
    const auto placement = place_step(topology, request);
    ASSERT_EQ(placement.cores_per_task, cores_per_task) << "LNC " << lnc;
    StepFacts facts;
    facts.nnodes = 2;
    facts.node_id = 0;
    facts.local_task_count = 32;
    facts.total_task_count = 64;
    facts.first_host = facts.node_name = "trn-st-001";
    const auto step = prepare_step_environment(topology, placement, facts, s.options);
    const auto env = as_map(render(step, 0, 0));
    const auto& list = env.at("NEURON_PJRT_PROCESSES_NUM_DEVICES");
    EXPECT_EQ(std::count(list.begin(), list.end(), ','), 63) << "LNC " << lnc;
    EXPECT_EQ(list.substr(0, 2), std::to_string(cores_per_task) + ",") << "LNC " << lnc;
  }
}

TEST(TaskEnvironment, UnevenTasksCannotFormANeuronWorld) {
  const auto& topology = discovered("trn1.32xlarge");
  PlacementRequest request;
  request.local_tasks = 16;
  const auto placement = place_step(topology, request);
  StepFacts facts;
  facts.nnodes = 2;
  facts.local_task_count = 16;
  facts.total_task_count = 24;  // 16 here, 8 on the other node: 2 and 4 cores per worker
  facts.first_host = facts.node_name = "trn-st-001";
  try {
    prepare_step_environment(topology, placement, facts, {});
    FAIL() << "an uneven per-core step was accepted";
  } catch (const trn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--ntasks-per-node"), std::string::npos) << e.what();
  }
  // With the cores per task fixed every worker has 2, wherever it runs.
  EnvOptions fixed;
  fixed.cores_per_task_fixed = true;
  const auto env =
      as_map(render(prepare_step_environment(topology, placement, facts, fixed), 0, 0));
  const auto& list = env.at("NEURON_PJRT_PROCESSES_NUM_DEVICES");
  EXPECT_EQ(std::count(list.begin(), list.end(), ','), 23);
}

TEST(NeuronLaunch, AutoFindsTorchrunInTheTaskCommand) {
  using V = std::vector<std::string>;
  const auto resolved = [](const V& argv) {
    return resolve_neuron_launch(NeuronLaunch::kAuto, argv);
  };
  EXPECT_EQ(resolved({"torchrun", "--nproc_per_node=32", "train.py"}), NeuronLaunch::kTorchrun);
  EXPECT_EQ(resolved({"/opt/venv/bin/torchrun", "x"}), NeuronLaunch::kTorchrun);
  EXPECT_EQ(resolved({"python3", "-u", "-m", "torch.distributed.run", "x"}),
            NeuronLaunch::kTorchrun);
  EXPECT_EQ(resolved({"python3", "-m", "trn_trainer"}), NeuronLaunch::kPerCore);
  EXPECT_EQ(resolved({"bash", "-c", "torchrun x"}), NeuronLaunch::kPerCore);
  EXPECT_EQ(resolved({}), NeuronLaunch::kPerCore);
  // trn-run's compile step traces the training world through torchrun's workers.
  EXPECT_EQ(resolved({"/usr/lib/trn-slurm/trn-launcher", "compile-agent", "--", "torchrun",
                      "--nproc_per_node=32", "python3"}),
            NeuronLaunch::kTorchrun);
  EXPECT_EQ(resolved({"trn-launcher", "compile-agent", "--", "python3", "-m", "trn_trainer"}),
            NeuronLaunch::kPerCore);
  EXPECT_EQ(resolve_neuron_launch(NeuronLaunch::kTorchrun, {"bash", "run.sh"}),
            NeuronLaunch::kTorchrun);
  EXPECT_EQ(parse_neuron_launch("per-core", "--neuron-launch"), NeuronLaunch::kPerCore);
  EXPECT_THROW(parse_neuron_launch("percore", "--neuron-launch"), trn::Error);
}

TEST(TaskEnvironment, NoEfaNoLibfabricVariables) {
  Scenario s{"inf2.48xlarge"};
  s.local_tasks = 12;
  const auto env = as_map(render(prepare(s), 0, 12));
  for (const char* absent : {"FI_PROVIDER", "FI_EFA_USE_DEVICE_RDMA", "FI_EFA_FORK_SAFE",
                             "TRN_EFA_DEVICES", "NEURON_LOGICAL_NC_CONFIG"}) {
    EXPECT_EQ(env.count(absent), 0u) << absent;
  }
  EXPECT_EQ(env.at("NEURON_RT_VISIBLE_CORES"), "0-1");

  s.options.efa = EfaMode::kRequired;
  try {
    prepare(s);
    FAIL();
  } catch (const trn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("node trn-st-002 has no EFA device"), std::string::npos)
        << e.what();
  }
}

TEST(TaskEnvironment, EfaOffLeavesLibfabricAlone) {
  Scenario s{"trn1.32xlarge"};
  s.options.efa = EfaMode::kOff;
  const auto step = prepare(s);
  const auto env = as_map(render(step, 0, 16));
  EXPECT_EQ(env.count("FI_PROVIDER"), 0u);
  EXPECT_EQ(env.count("TRN_EFA_DEVICES"), 0u);
  ASSERT_FALSE(step.notes.empty());
  EXPECT_NE(step.notes[0].find("efa=off"), std::string::npos);
}

TEST(TaskEnvironment, CpuOnlyNodeStillGetsRendezvous) {
  Scenario s{"cpu-only"};
  s.local_tasks = 4;
  const auto env = as_map(render(prepare(s), 3, 7));
  EXPECT_EQ(env.at("MASTER_ADDR"), "trn-st-001");
  EXPECT_EQ(env.at("RANK"), "7");
  EXPECT_EQ(env.at("LOCAL_RANK"), "3");
  EXPECT_EQ(env.at("WORLD_SIZE"), "8");
  EXPECT_EQ(env.at("TRN_CPUS"), "0-7");
  EXPECT_EQ(env.at("TRN_INSTANCE_TYPE"), "c5.2xlarge");
  for (const char* absent : {"NEURON_RT_VISIBLE_CORES", "NEURON_RT_ROOT_COMM_ID", "FI_PROVIDER"}) {
    EXPECT_EQ(env.count(absent), 0u) << absent;
  }
}

TEST(TaskEnvironment, UserValuesWinUnlessOverridden) {
  const Env user = {{"MASTER_ADDR", "10.0.0.5"},
                    {"FI_PROVIDER", "tcp"},
                    {"RANK", "99"},
                    {"TRN_CPUS", "0"},
                    {"NEURON_RT_VISIBLE_CORES", "0-31"}};
  auto s = Scenario{"trn1.32xlarge"};
  auto env = render(prepare(s), 2, 18, user);
  auto set = as_map(env);
  for (const char* kept : {"MASTER_ADDR", "FI_PROVIDER", "RANK", "NEURON_RT_VISIBLE_CORES"}) {
    EXPECT_EQ(set.count(kept), 0u) << kept;
    EXPECT_NE(std::find(env.kept.begin(), env.kept.end(), kept), env.kept.end()) << kept;
  }
  EXPECT_EQ(set.at("NEURON_RT_ROOT_COMM_ID"), "10.0.0.5:15681");  // follows the user's host
  EXPECT_EQ(set.at("TRN_CPUS"), "32-63,96-127");                  // decisions are always set
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_NE(env.warnings[0].find("NEURON_RT_VISIBLE_CORES=0-31"), std::string::npos);

  s.options.override_user = true;
  env = render(prepare(s), 2, 18, user);
  set = as_map(env);
  EXPECT_TRUE(env.kept.empty());
  EXPECT_EQ(set.at("MASTER_ADDR"), "trn-st-001");
  EXPECT_EQ(set.at("FI_PROVIDER"), "efa");
  EXPECT_EQ(set.at("RANK"), "18");
  EXPECT_EQ(set.at("NEURON_RT_ROOT_COMM_ID"), "trn-st-001:15681");
}

TEST(TaskEnvironment, CompileCacheNeverFightsTheUsersCacheDir) {
  Scenario s{"trn1.2xlarge"};
  s.nnodes = 1;
  s.node_id = 0;
  s.local_tasks = 1;
  s.options.compile_cache = "/var/tmp/neuron-compile-cache/alice";
  const auto step = prepare(s);
  EXPECT_EQ(as_map(render(step, 0, 0)).at("NEURON_COMPILE_CACHE_URL"),
            "/var/tmp/neuron-compile-cache/alice");
  EXPECT_EQ(as_map(render(step, 0, 0, {{"NEURON_COMPILE_CACHE_URL", "s3://b/c"}}))
                .count("NEURON_COMPILE_CACHE_URL"),
            0u);
  const auto env =
      render(step, 0, 0, {{"NEURON_CC_FLAGS", "--model-type=transformer --cache_dir=/fsx/cc"}});
  const auto set = as_map(env);
  EXPECT_EQ(set.count("NEURON_COMPILE_CACHE_URL"), 0u);
  EXPECT_EQ(set.count("NEURON_CC_FLAGS"), 0u);
  ASSERT_EQ(env.warnings.size(), 1u);
  EXPECT_NE(env.warnings[0].find("--cache_dir=/fsx/cc"), std::string::npos) << env.warnings[0];
}

TEST(TaskEnvironment, InconsistentFactsAreErrors) {
  const auto& topology = discovered("trn1.2xlarge");
  PlacementRequest request;
  const auto placement = place_step(topology, request);
  StepFacts facts;
  facts.first_host = "n1";
  facts.local_task_count = 2;
  facts.total_task_count = 2;
  EXPECT_THROW(prepare_step_environment(topology, placement, facts, {}), trn::Error);
  facts.local_task_count = 1;
  facts.first_host = "";
  EXPECT_THROW(prepare_step_environment(topology, placement, facts, {}), trn::Error);
  facts.first_host = "n1";
  facts.node_id = 1;
  EXPECT_THROW(prepare_step_environment(topology, placement, facts, {}), trn::Error);
  facts.node_id = 0;
  facts.total_task_count = 1;
  const auto step = prepare_step_environment(topology, placement, facts, {});
  EXPECT_THROW(render(step, 1, 1), trn::Error);
}

TEST(RendezvousPorts, DistinctPerJobAndStepAndBelowTheEphemeralRange) {
  std::set<std::uint16_t> seen;
  for (std::uint32_t job = 5000; job < 6000; ++job) {
    for (std::uint32_t step : {0u, 1u, 2u, 8u, 0xfffffffbu}) {
      const auto ports = rendezvous_ports(job, step);
      EXPECT_TRUE(seen.insert(ports.master_port).second) << job << "." << step;
      EXPECT_TRUE(seen.insert(ports.root_comm_port).second) << job << "." << step;
      EXPECT_GE(ports.master_port, 1024);
      EXPECT_LT(ports.root_comm_port, 32768);
      const auto block = job_port_block(job);
      EXPECT_GE(ports.master_port, block.first);
      EXPECT_LT(ports.root_comm_port, block.first + block.count);
    }
  }
  EXPECT_EQ(rendezvous_ports(42, 3).master_port, rendezvous_ports(42, 3).master_port);
}

TEST(EfaMode, Parses) {
  EXPECT_EQ(parse_efa_mode("required", "efa"), EfaMode::kRequired);
  EXPECT_EQ(parse_efa_mode("off", "efa"), EfaMode::kOff);
  EXPECT_EQ(to_string(EfaMode::kAuto), "auto");
  EXPECT_THROW(parse_efa_mode("on", "efa"), trn::Error);
}

namespace {

TEST(TaskEnvironment, SharedCacheTierIsExportedForTrnRun) {
  Scenario s{"cpu-only"};
  s.local_tasks = 1;
  EXPECT_EQ(as_map(render(prepare(s), 0, 1)).count("TRN_CACHE_SHARED"), 0u);
  s.options.shared_cache = "/fsx/neuron-cache";
  EXPECT_EQ(as_map(render(prepare(s), 0, 1)).at("TRN_CACHE_SHARED"), "/fsx/neuron-cache");
}

}  // namespace

// docs/llama.md#training: a tensor-parallel group is tp consecutive ranks. With the plan's
// rule (tp divides a node's workers) and Slurm's block numbering (node by node), each group
// must get one node's consecutive NeuronCores: the cores its collectives are fastest between.
TEST(TaskEnvironment, TensorParallelGroupsGetConsecutiveCoresOfOneNode) {
  constexpr unsigned nodes = 2, per_node = 32, tp = 8;
  std::map<unsigned, std::vector<std::pair<std::string, int>>> groups;  // group -> (node, core)
  for (unsigned node = 0; node < nodes; ++node) {
    Scenario s{"trn1.32xlarge"};
    s.nnodes = nodes;
    s.node_id = node;
    s.local_tasks = per_node;
    const auto step = prepare(s);
    for (unsigned local = 0; local < per_node; ++local) {
      const unsigned rank = node * per_node + local;
      const auto env = as_map(render(step, local, rank));
      ASSERT_EQ(env.at("RANK"), std::to_string(rank));
      groups[rank / tp].emplace_back(env.at("NODE_RANK"),
                                     std::stoi(env.at("NEURON_RT_VISIBLE_CORES")));
    }
  }
  ASSERT_EQ(groups.size(), nodes * per_node / tp);
  std::set<std::pair<std::string, int>> every_core;
  for (const auto& [group, members] : groups) {
    ASSERT_EQ(members.size(), tp);
    for (unsigned i = 0; i < tp; ++i) {
      EXPECT_EQ(members[i].first, members[0].first) << "group " << group << " spans nodes";
      EXPECT_EQ(members[i].second, members[0].second + static_cast<int>(i))
          << "group " << group << ": rank " << i << " is not on the next NeuronCore";
      every_core.insert(members[i]);
    }
  }
  EXPECT_EQ(every_core.size(), nodes * per_node);  // no core given twice
}
