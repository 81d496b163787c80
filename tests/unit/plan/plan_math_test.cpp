// The batch arithmetic of the plan: strong and weak scaling, tp x pp, learning-rate rules,
// launch modes and the node counts an infeasible plan proposes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "contains_all.hpp"
#include "plan_test_support.hpp"
#include "trn/plan/load_profile.hpp"
#include "trn/plan/plan.hpp"
#include "trn/plan/profile_keys.hpp"

namespace {

using plan_test::bundled;
using plan_test::error_of;
using plan_test::expect_flags;
using plan_test::expect_plan_values;
using plan_test::plan_on;
using testing::HasSubstr;
using trn::test::expect_contains_all;
using namespace trn::plan;

struct StrongCase {
  std::int64_t nodes;
  std::int64_t accumulation;
};

class BertStrongScaling : public testing::TestWithParam<StrongCase> {};

TEST_P(BertStrongScaling, KeepsTheGlobalBatchAndDividesTheAccumulation) {
  const auto [nodes, accumulation] = GetParam();
  const Plan plan = plan_on(bundled("bert_pretrain"), nodes, 32);
  expect_plan_values(plan, {{"workers_per_node", 32},
                            {"world_size", 32 * nodes},
                            {"data_parallel", 32 * nodes},
                            {"micro_batch", 16},
                            {"grad_accum", accumulation},
                            {"global_batch", 16384},
                            {"lr", 4e-4}});
  EXPECT_EQ(plan.micro_batch * plan.grad_accum * plan.data_parallel, plan.global_batch);
}

INSTANTIATE_TEST_SUITE_P(Nodes, BertStrongScaling,
                         testing::Values(StrongCase{1, 32}, StrongCase{2, 16}, StrongCase{4, 8},
                                         StrongCase{16, 2}, StrongCase{32, 1}));

// A run shorter than its warm-up never trains at the rate it asks for (issue 33.8): refused,
// naming both counts and the two fixes.
TEST(Warmup, LongerThanTheRunIsAnError) {
  auto profile = bundled("bert_tiny");  // warmup 4
  profile.steps = 3;
  expect_contains_all(
      error_of([&] { plan_on(profile, 1, 0); }),
      {"launcher/profiles/bert_tiny.yaml: warmup 4 is longer than the run's 3 steps", "(--steps)",
       "--set warmup=3"});
  profile.steps = 4;  // the rate reaches lr at the last step
  EXPECT_EQ(plan_on(profile, 1, 0).warmup, 4);
}

TEST(StrongScaling, SixtyFourNodesIsInfeasibleAndListsTheNodeCountsThatWork) {
  const std::string message = error_of([] { plan_on(bundled("bert_pretrain"), 64, 32); });
  expect_contains_all(
      message,
      {"profile bert_pretrain on 64 nodes", "global_batch 16384", "data-parallel degree 2048",
       "node counts that work: 1, 2, 4, 8, 16, 32;", "set micro_batch to 8", "--set scaling=weak"});
}

TEST(StrongScaling, ANodeCountThatLeavesARemainderIsInfeasible) {
  // 3 nodes x 32 workers = 96 does not divide 16384 / 16 = 1024.
  const std::string message = error_of([] { plan_on(bundled("bert_pretrain"), 3, 32); });
  EXPECT_THAT(message, HasSubstr("on 3 nodes"));
  EXPECT_THAT(message, HasSubstr("node counts that work: 1, 2, 4, 8, 16, 32;"));
}

TEST(StrongScaling, AGlobalBatchNoNodeCountDividesSaysSo) {
  Profile profile = bundled("bert_tiny");
  apply_override(profile, "global_batch", "12");  // 12 / 8 is never whole
  const std::string message = error_of([&] { plan_on(profile, 1, 0); });
  EXPECT_THAT(message, HasSubstr("no node count works"));
  EXPECT_THAT(message, HasSubstr("set micro_batch to 6"));
}

TEST(StrongScaling, CpuNodesUseTheProfilesCpuWorkers) {
  const Profile tiny = bundled("bert_tiny");
  for (const auto& [nodes, accumulation] : {std::pair{1, 8}, {2, 4}, {4, 2}, {8, 1}}) {
    const Plan plan = plan_on(tiny, nodes, 0);
    EXPECT_FALSE(plan.neuron_devices);
    EXPECT_EQ(plan.workers_per_node, 1);
    EXPECT_EQ(plan.grad_accum, accumulation) << nodes << " nodes";
    EXPECT_EQ(plan.global_batch, 64);
  }
  EXPECT_THAT(error_of([&] { plan_on(tiny, 16, 0); }),
              HasSubstr("node counts that work: 1, 2, 4, 8;"));

  Profile two_workers = tiny;
  apply_override(two_workers, "cpu_workers_per_node", "2");
  const Plan plan = plan_on(two_workers, 2, 0);
  EXPECT_EQ(plan.workers_per_node, 2);
  EXPECT_EQ(plan.world_size, 4);
  EXPECT_EQ(plan.grad_accum, 2);
}

TEST(FeasibleNodeCounts, FollowTheDivisors) {
  EXPECT_EQ(feasible_node_counts(bundled("bert_pretrain"), 32, 64),
            (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(feasible_node_counts(bundled("bert_pretrain_lamb"), 32, 256),
            (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128}));
  Profile weak = bundled("bert_tiny");
  apply_override(weak, "scaling", "weak");
  EXPECT_EQ(feasible_node_counts(weak, 1, 5), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
}

TEST(WeakScaling, KeepsTheReferenceAccumulationAndGrowsTheGlobalBatch) {
  Profile lamb = bundled("bert_pretrain_lamb");
  apply_override(lamb, "scaling", "weak");
  for (const std::int64_t nodes : {1, 2, 4, 16}) {
    const Plan plan = plan_on(lamb, nodes, 32);
    EXPECT_EQ(plan.grad_accum, 128) << nodes << " nodes";
    EXPECT_EQ(plan.global_batch, 65536 * nodes);
    EXPECT_EQ(plan.reference_global_batch, 65536);
    EXPECT_DOUBLE_EQ(*plan.lr, 6e-3);  // lr_scaling none
  }
  // The published 16-node LAMB run: global batch 1,048,576.
  EXPECT_EQ(plan_on(lamb, 16, 32).global_batch, 1048576);
  // Weak scaling runs on node counts strong scaling cannot.
  EXPECT_EQ(plan_on(lamb, 3, 32).global_batch, 65536 * 3);
}

TEST(WeakScaling, LearningRateRules) {
  Profile lamb = bundled("bert_pretrain_lamb");
  apply_override(lamb, "scaling", "weak");
  apply_override(lamb, "lr_scaling", "linear");
  EXPECT_NEAR(*plan_on(lamb, 16, 32).lr, 6e-3 * 16, 1e-12);
  EXPECT_NEAR(*plan_on(lamb, 1, 32).lr, 6e-3, 1e-15);
  apply_override(lamb, "lr_scaling", "sqrt");
  EXPECT_NEAR(*plan_on(lamb, 16, 32).lr, 6e-3 * 4, 1e-12);
  EXPECT_NEAR(*plan_on(lamb, 2, 32).lr, 6e-3 * std::sqrt(2.0), 1e-12);
  apply_override(lamb, "lr_scaling", "none");
  EXPECT_DOUBLE_EQ(*plan_on(lamb, 16, 32).lr, 6e-3);
}

TEST(WeakScaling, TheRuleChangesNothingUnderStrongScaling) {
  Profile profile = bundled("bert_pretrain");
  apply_override(profile, "lr_scaling", "linear");
  EXPECT_DOUBLE_EQ(*plan_on(profile, 16, 32).lr, 4e-4);
}

TEST(WeakScaling, ReferenceNodesSetWhereGlobalBatchAndLrHold) {
  Profile profile = trn::plan::parse_profile(plan_test::minimal_profile +
                                                 "scaling: weak\nlr: 0.1\nlr_scaling: linear\n"
                                                 "reference_nodes: 2\ncpu_workers_per_node: 2\n",
                                             "<test>", "weak");
  // Reference: 2 nodes x 2 workers, dp 4: accumulation 64 / (4 x 4) = 4.
  const Plan at_reference = plan_on(profile, 2, 0);
  EXPECT_EQ(at_reference.grad_accum, 4);
  EXPECT_EQ(at_reference.global_batch, 64);
  EXPECT_DOUBLE_EQ(*at_reference.lr, 0.1);
  const Plan doubled = plan_on(profile, 4, 0);
  EXPECT_EQ(doubled.grad_accum, 4);
  EXPECT_EQ(doubled.global_batch, 128);
  EXPECT_DOUBLE_EQ(*doubled.lr, 0.2);
  const Plan halved = plan_on(profile, 1, 0);
  EXPECT_EQ(halved.global_batch, 32);
  EXPECT_DOUBLE_EQ(*halved.lr, 0.05);
}

TEST(WeakScaling, AReferenceWithoutAWholeAccumulationIsAnError) {
  Profile profile = bundled("bert_pretrain");
  apply_override(profile, "scaling", "weak");
  apply_override(profile, "global_batch", "1000");
  EXPECT_THAT(error_of([&] { plan_on(profile, 2, 32); }),
              HasSubstr("weak scaling keeps the accumulation of reference_nodes 1"));
}

TEST(WeakScaling, AnLrRuleWithoutLrIsAnError) {
  Profile profile = trn::plan::parse_profile(
      plan_test::minimal_profile + "scaling: weak\nlr_scaling: sqrt\n", "<test>", "nolr");
  EXPECT_THAT(error_of([&] { plan_on(profile, 1, 0); }),
              HasSubstr("lr_scaling is sqrt but the profile sets no lr"));
}

TEST(ModelParallel, TensorParallelDividesTheWorkers) {
  expect_plan_values(plan_on(bundled("llama2_7b_nxd"), 16, 32), {{"tensor_parallel", 8},
                                                                 {"world_size", 512},
                                                                 {"data_parallel", 64},
                                                                 {"grad_accum", 16},
                                                                 {"global_batch", 1024}});
}

TEST(ModelParallel, PipelineParallelCountsToo) {
  Profile profile = bundled("bert_pretrain");
  apply_override(profile, "tensor_parallel", "2");
  apply_override(profile, "pipeline_parallel", "2");
  const Plan plan = plan_on(profile, 1, 32);
  EXPECT_EQ(plan.data_parallel, 8);
  EXPECT_EQ(plan.grad_accum, 16384 / (16 * 8));
}

TEST(ModelParallel, ADegreeThatDoesNotDivideIsAnErrorListingWhatWorks) {
  Profile profile = bundled("bert_tiny");
  apply_override(profile, "tensor_parallel", "2");
  apply_override(profile, "pipeline_parallel", "3");
  const std::string message = error_of([&] { plan_on(profile, 2, 2); });
  EXPECT_THAT(message, HasSubstr("tensor_parallel 2 x pipeline_parallel 3 = 6 does not divide "
                                 "the 4 workers (2 x 2)"));
  // 3k nodes give dp 2k/... : 6 x 2 workers / 6 = dp 2, and the accumulation 64 / (8 x dp) is
  // whole for dp 1, 2, 4, 8.
  EXPECT_THAT(message, HasSubstr("node counts that work: 3, 6, 12, 24;"));
}

TEST(ModelParallel, ATensorParallelGroupSitsOnOneNode) {
  Profile profile = bundled("bert_tiny");
  apply_override(profile, "tensor_parallel", "2");
  apply_override(profile, "global_batch", "48");
  // 2 x 3 workers: dp 3 would work arithmetically, but ranks 2 and 3 are on different nodes.
  EXPECT_THAT(error_of([&] { plan_on(profile, 2, 3); }),
              HasSubstr("tensor_parallel 2 does not divide the 3 workers of a node, so a "
                        "tensor-parallel group would span nodes"));
  EXPECT_EQ(plan_on(profile, 3, 2).data_parallel, 3);  // 2 workers: one group per node
}

TEST(ModelParallel, WeakScalingNeedsAReferenceTheDegreeDivides) {
  Profile profile = bundled("llama2_7b_nxd");
  apply_override(profile, "scaling", "weak");
  apply_override(profile, "pipeline_parallel", "4");
  // 1 node of 8 workers holds one tensor-parallel group but not tp 8 x pp 4.
  EXPECT_THAT(error_of([&] { plan_on(profile, 8, 8); }),
              HasSubstr("weak scaling starts from reference_nodes 1 x 8 workers"));
}

TEST(Launch, PerCoreIsOneTaskPerWorkerAndTorchrunOnePerNode) {
  const Plan per_core = plan_on(bundled("bert_pretrain"), 2, 32);
  EXPECT_EQ(per_core.launch, LaunchMode::kPerCore);
  EXPECT_EQ(per_core.tasks_per_node, 32);
  EXPECT_EQ(per_core.processes_per_task, 1);
  const Plan torchrun = plan_on(bundled("llama2_7b_nxd"), 16, 32);
  EXPECT_EQ(torchrun.launch, LaunchMode::kTorchrun);
  EXPECT_EQ(torchrun.tasks_per_node, 1);
  EXPECT_EQ(torchrun.processes_per_task, 32);
}

TEST(Launch, MpirunIsOneTaskPerWorkerLikePerCore) {
  Profile profile = bundled("llama2_7b_nxd");
  apply_override(profile, "launch", "mpirun");  // the MPI flows' profiles (seed 003)
  const Plan mpirun = plan_on(profile, 16, 32);
  EXPECT_EQ(mpirun.launch, LaunchMode::kMpirun);
  EXPECT_EQ(mpirun.tasks_per_node, 32);
  EXPECT_EQ(mpirun.processes_per_task, 1);
  EXPECT_THAT(error_of([&] { apply_override(profile, "launch", "mpiexec"); }),
              HasSubstr("per-core, torchrun or mpirun"));
}

TEST(Plan, RecordsTheProfileAndTheCluster) {
  trn::plan::PlanRequest request = plan_test::on(2, 32);
  request.cluster.node_names = {"trn-st-1", "trn-st-2"};
  request.cluster.job_id = 4242;
  const Plan plan = make_plan(bundled("bert_pretrain"), request);
  EXPECT_EQ(plan.profile, "bert_pretrain");
  EXPECT_EQ(plan.profile_file, plan_test::bundled_dir / "bert_pretrain.yaml");
  EXPECT_EQ(plan.node_list, request.cluster.node_names);
  EXPECT_TRUE(plan.neuron_devices);
  EXPECT_EQ(plan.job_id, 4242u);
  EXPECT_EQ(plan.run_dir, std::filesystem::path("runs/bert_pretrain-4242"));
  expect_plan_values(plan, {{"steps", 28125},
                            {"warmup", 2000},
                            {"seq_len", 128},
                            {"compile_steps", 5},
                            {"checkpoint_every", 1000},
                            {"keep_checkpoints", 3},
                            {"max_restarts", 3}});
  EXPECT_EQ(plan.requeue, RequeuePolicy::kNodeFailure);
}

TEST(Plan, RunDirectoryWithoutAJobHomeExpansionAndExplicitRunDir) {
  Profile profile = bundled("bert_pretrain");
  apply_override(profile, "output_root", "~/trn-runs");
  trn::plan::PlanRequest request = plan_test::on(1, 32);
  request.home = "/home/alice";
  const Plan plan = make_plan(profile, request);
  EXPECT_EQ(plan.run_dir, std::filesystem::path("/home/alice/trn-runs/bert_pretrain-local"));
  EXPECT_EQ(plan.data,
            "/home/alice/examples_datasets/bert_pretrain_wikicorpus_tokenized_hdf5_seqlen128");
  request.run_dir = "/fsx/run7";
  EXPECT_EQ(make_plan(profile, request).run_dir, std::filesystem::path("/fsx/run7"));
  // Without a home, paths stay as written.
  EXPECT_EQ(plan_on(profile, 1, 32).data,
            "~/examples_datasets/bert_pretrain_wikicorpus_tokenized_hdf5_seqlen128");
}

TEST(Plan, CommandAndCompileCommandAreRenderedWithExtraArgs) {
  trn::plan::PlanRequest request = plan_test::on(2, 0);
  request.cluster.job_id = 7;
  request.extra_args = {"--dropout", "0.0"};
  const Plan plan = make_plan(bundled("bert_tiny"), request);
  const std::vector<std::string> expected{"python3",
                                          "-m",
                                          "trn_trainer",
                                          "pretrain",
                                          "--data",
                                          "data/bert_tiny",
                                          "--output",
                                          "runs/bert_tiny-7",
                                          "--model",
                                          "tiny",
                                          "--micro-batch",
                                          "8",
                                          "--global-batch",
                                          "64",
                                          "--steps",
                                          "40",
                                          "--optimizer",
                                          "adamw",
                                          "--lr",
                                          "0.0004",
                                          "--warmup",
                                          "4",
                                          "--seed",
                                          "12345",
                                          "--seq-len",
                                          "128",
                                          "--checkpoint-every",
                                          "10",
                                          "--keep-checkpoints",
                                          "3",
                                          "--log-every",
                                          "5",
                                          "--dropout",
                                          "0.0"};
  EXPECT_EQ(plan.command, expected);
  // The compile phase runs the profile's compile_steps (2), through {steps_this_run}; nothing
  // else differs, so it compiles the graphs training runs.
  std::vector<std::string> compile_expected = expected;
  const auto steps = std::find(compile_expected.begin(), compile_expected.end(), "--steps");
  ASSERT_NE(steps, compile_expected.end());
  *(steps + 1) = "2";
  EXPECT_EQ(plan.compile_command, compile_expected);
  const Plan llama = plan_on(bundled("llama2_7b_nxd"), 16, 32);
  expect_flags(llama.command, {{"--steps_this_run", "10000"},
                               {"--grad_accum_usteps", "16"},
                               {"--tensor_parallel_size", "8"}});
  expect_flags(llama.compile_command, {{"--steps_this_run", "2"}, {"--max_steps", "10000"}});
}

TEST(Plan, EnvValuesAreTemplates) {
  Profile profile = bundled("bert_tiny");
  apply_override(profile, "env.TRN_DEMO_DIR", "{run_dir}/extra");
  apply_override(profile, "env.OMP_NUM_THREADS", "2");
  const Plan plan = plan_on(profile, 1, 0);
  EXPECT_EQ(plan.env.at("TRN_DEMO_DIR"), "runs/bert_tiny-local/extra");
  EXPECT_EQ(plan.env.at("OMP_NUM_THREADS"), "2");
}

TEST(Plan, APlaceholderWithoutValueNamesTheKeyToSet) {
  Profile profile = trn::plan::parse_profile(
      "command: python3 train.py --lr {lr}\nmicro_batch: 1\nglobal_batch: 1\nsteps: 1\n", "<test>",
      "nolr");
  EXPECT_THAT(error_of([&] { plan_on(profile, 1, 0); }),
              HasSubstr("<test>: command: {lr} has no value: the profile sets no lr; set it in "
                        "the profile (lr: ...) or with --set lr=VALUE"));
}

// A command that takes none of {run_dir}, {checkpoint_dir}, {checkpoint_uri}, {resume} cannot
// find an earlier job's checkpoints: the plan says so instead of offering a resume.
TEST(Plan, ResumableOnlyWhenTheCommandTakesACheckpointPlaceholder) {
  EXPECT_TRUE(plan_on(bundled("bert_tiny"), 1, 0).resumable);
  const auto parse = [](const std::string& command) {
    return trn::plan::parse_profile("command: " + command +
                                        "\nmicro_batch: 1\nglobal_batch: 1\nsteps: 1\n"
                                        "checkpoint_uri: s3://bucket/runs/x\n",
                                    "<test>", "user");
  };
  const Plan forgetful = plan_on(parse("python3 train.py --steps {steps}"), 1, 0);
  EXPECT_FALSE(forgetful.resumable);
  EXPECT_THAT(trn::plan::render_plan_text(forgetful),
              HasSubstr("no: the command takes none of {run_dir}, {checkpoint_dir}, "
                        "{checkpoint_uri}, {resume}, so a job that stops early starts over"));
  const Plan stored = plan_on(parse("python3 train.py --save {checkpoint_uri}"), 1, 0);
  EXPECT_TRUE(stored.resumable);
  EXPECT_EQ(stored.command.back(), "s3://bucket/runs/x");
  EXPECT_TRUE(plan_on(parse("train --ckpt {checkpoint_dir}"), 1, 0).resumable);
  EXPECT_THAT(error_of([&] {
                trn::plan::parse_profile(
                    "command: t\nmicro_batch: 1\nglobal_batch: 1\nsteps: 1\n"
                    "checkpoint_uri: /fsx/ckpt\n",
                    "<test>", "bad");
              }),
              HasSubstr("checkpoint_uri"));
}

TEST(Plan, BadClusterShapesAreErrors) {
  const Profile tiny = bundled("bert_tiny");
  EXPECT_THAT(error_of([&] { plan_on(tiny, 0, 0); }), HasSubstr("give the node count (--nodes N)"));
  trn::plan::PlanRequest request = plan_test::on(2, 0);
  request.cluster.node_names = {"only-one"};
  EXPECT_THAT(error_of([&] { make_plan(tiny, request); }),
              HasSubstr("the node list names 1 nodes but the allocation has 2"));
}

TEST(Plan, AnIncompleteProfileIsAnError) {
  Profile profile;
  profile.name = "empty";
  EXPECT_THAT(error_of([&] { plan_on(profile, 1, 0); }),
              HasSubstr("profile 'empty': missing required key 'command'"));
  Profile zero_tp = bundled("bert_tiny");
  zero_tp.tensor_parallel = 0;  // only possible in code: files and overrides refuse it
  EXPECT_THAT(error_of([&] { plan_on(zero_tp, 1, 0); }),
              HasSubstr("bert_tiny.yaml: tensor_parallel must be a whole number >= 1, got 0"));
}

TEST(TensorParallel, ADegreeNeuronxDistributedHasNoGroupOrderForOnTrn2IsRefused) {
  Profile llama = bundled("llama2_7b");
  auto request = plan_test::on(2, 64);  // trn2.48xlarge at logical NeuronCore config 2
  request.cluster.instance_type = "trn2.48xlarge";
  llama.tensor_parallel = 8;
  expect_contains_all(error_of([&] { make_plan(llama, request); }),
                      {"profile llama2_7b: tensor_parallel 8 on trn2.48xlarge at logical "
                       "NeuronCore config 2 (64 cores a node)",
                       "fix: choose tensor_parallel 4, 16, 32 or 64"});
  llama.tensor_parallel = 16;
  EXPECT_EQ(make_plan(llama, request).tensor_parallel, 16);
  request.cluster.neuron_cores_per_node = 128;  // config 1
  EXPECT_THAT(error_of([&] { make_plan(llama, request); }),
              HasSubstr("fix: choose tensor_parallel 8, 32, 64 or 128"));
  request.cluster.instance_type = "trn1.32xlarge";  // trn1: consecutive or tp 4's order
  request.cluster.neuron_cores_per_node = 32;
  EXPECT_EQ(make_plan(llama, request).tensor_parallel, 16);
}

TEST(TensorParallel, TheNativePathIsNotHeldToNeuronxDistributedsGroupOrders) {
  // TorchNeuron's tensor-parallel groups are DeviceMesh groups: tp 8 on a trn2 node at LNC 2 is
  // neuronx-distributed's gap, not the native trainer's.
  Profile llama = bundled("llama2_7b");
  auto request = plan_test::on(2, 64);
  request.cluster.instance_type = "trn2.48xlarge";
  llama.tensor_parallel = 8;
  for (const auto& native :
       {std::vector<std::string>{"--native"}, std::vector<std::string>{"--device", "neuron"},
        std::vector<std::string>{"--device=neuron"}}) {
    Profile on_torchneuron = llama;
    on_torchneuron.command.insert(on_torchneuron.command.end(), native.begin(), native.end());
    EXPECT_EQ(make_plan(on_torchneuron, request).tensor_parallel, 8) << native.front();
  }
  // Workers the profile declares TorchNeuron's (worker_cores: per-worker, as TorchTitan's trainer,
  // whose command names none of the bundled trainer's options) are held to no such order either.
  Profile torchtitan = bundled("torchtitan_qwen3_8b");
  torchtitan.tensor_parallel = 8;
  ASSERT_EQ(torchtitan.worker_cores, WorkerCores::kPerWorker);
  EXPECT_EQ(make_plan(torchtitan, request).tensor_parallel, 8);
  Profile on_cpu = llama;
  on_cpu.command.insert(on_cpu.command.end(), {"--device", "cpu"});
  EXPECT_THAT(error_of([&] { make_plan(on_cpu, request); }),
              HasSubstr("neuronx-distributed has no replica-group order"));
  on_cpu.command.insert(on_cpu.command.end(), {"--device", "neuron"});  // the last one wins
  EXPECT_EQ(make_plan(on_cpu, request).tensor_parallel, 8);
}

TEST(TensorParallel, ADegreeThatDoesNotDivideANodesLogicalCoresIsRefused) {
  // trn3e.24xlarge: 4 Trainium3 devices, 16 logical NeuronCores at LNC 2.
  Profile llama = bundled("llama2_7b");
  auto request = plan_test::on(4, 16);
  request.cluster.instance_type = "trn3e.24xlarge";
  llama.tensor_parallel = 32;
  expect_contains_all(error_of([&] { make_plan(llama, request); }),
                      {"tensor_parallel 32 does not divide the 16 workers of a node",
                       "fix: choose a tensor_parallel that divides 16"});
}

}  // namespace
