// The profiles shipped in launcher/profiles: each loads, plans, and holds the reference numbers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plan_test_support.hpp"
#include "trn/plan/instance_cores.hpp"
#include "trn/plan/plan.hpp"
#include "trn/plan/profile_search.hpp"

namespace {

using plan_test::bundled;
using plan_test::expect_flags;
using plan_test::expect_plan_values;
using plan_test::flag_value;
using plan_test::plan_on;
using testing::Contains;
using namespace trn::plan;

class EveryBundledProfile : public testing::TestWithParam<ProfileLocation> {};

TEST_P(EveryBundledProfile, LoadsAndPlansOnSomeNodeCount) {
  const Profile profile = load_profile_file(GetParam().file);
  EXPECT_FALSE(profile.description.empty());
  // Neuron nodes (trn1.32xlarge), or CPU nodes for CPU-sized profiles.
  for (const std::int64_t cores : {32, 0}) {
    const auto counts = feasible_node_counts(profile, cores == 0 ? 1 : cores, 64);
    if (counts.empty()) continue;
    const Plan plan = plan_on(profile, counts.front(), cores);
    EXPECT_EQ(plan.micro_batch * plan.grad_accum * plan.data_parallel, plan.global_batch);
    EXPECT_FALSE(plan.command.empty());
    return;
  }
  ADD_FAILURE() << GetParam().name << " plans on no node count up to 64";
}

std::string bundled_profile_name(const testing::TestParamInfo<ProfileLocation>& param_info) {
  return param_info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Bundled, EveryBundledProfile,
                         testing::ValuesIn(available_profiles({plan_test::bundled_dir})),
                         bundled_profile_name);

// The trainer's Python source, every module of every package: its command lines are defined
// there (tasks/options.py and the tasks).
std::stringstream trainer_source() {
  std::stringstream text;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           plan_test::source_dir / "trainer" / "trn_trainer")) {
    if (entry.path().extension() != ".py") continue;
    std::ifstream module(entry.path());
    text << module.rdbuf() << '\n';
  }
  return text;
}

// Every --flag the BERT profiles give our trainer must be one its command line defines.
TEST(BundledProfiles, UseOnlyFlagsOurTrainerHas) {
  const auto text = trainer_source();
  ASSERT_NE(text.str().find("\"--micro-batch\""), std::string::npos)
      << "the trainer's source not found";
  for (const std::string name :
       {"bert_pretrain", "bert_pretrain_lamb", "bert_pretrain_ph2", "bert_tiny"}) {
    const Profile profile = bundled(name);
    ASSERT_GE(profile.command.size(), 4u);
    EXPECT_EQ(std::vector<std::string>(profile.command.begin(), profile.command.begin() + 4),
              (std::vector<std::string>{"python3", "-m", "trn_trainer", "pretrain"}));
    for (const auto& word : profile.command) {
      if (word.starts_with("--")) {
        EXPECT_NE(text.str().find("\"" + word + "\""), std::string::npos)
            << name << ": " << word << " is not an option of python3 -m trn_trainer pretrain";
      }
    }
  }
}

// The ParallelCluster profiles write checkpoint shards to the folder the compute nodes' install
// makes on the instance-store NVMe; the local-cluster profile has no node-local tier.
TEST(BundledProfiles, ParallelClusterProfilesCheckpointToTheInstanceStore) {
  std::ifstream install(plan_test::source_dir / "pcluster-configs" / "install" /
                        "trn-slurm-install.sh");
  std::stringstream script;
  script << install.rdbuf();
  ASSERT_NE(script.str().find("\nlocal_checkpoints=/scratch/trn-checkpoints\n"), std::string::npos)
      << "the install action no longer makes /scratch/trn-checkpoints";
  for (const std::string name :
       {"bert_pretrain", "bert_pretrain_lamb", "bert_pretrain_ph2", "llama2_7b"}) {
    trn::plan::PlanRequest request = plan_test::on(16, 32);
    request.cluster.job_id = 42;
    const Plan plan = make_plan(bundled(name), request);
    EXPECT_EQ(plan.train_env.at("TRN_CHECKPOINT_LOCAL_DIR"),
              "/scratch/trn-checkpoints/" + name + "-42");
  }
  EXPECT_EQ(bundled("bert_tiny").checkpoint_local_dir, "");
}

// A BERT profile's reference numbers on one trn1.32xlarge node, and its accumulation on 16.
struct BertReference {
  std::string profile;
  std::map<std::string, nlohmann::json> plan_values;
  std::map<std::string, std::string> flags;
  std::int64_t accumulation_on_sixteen_nodes;
};

// Names the case by its profile in gtest's messages.
void PrintTo(const BertReference& reference, std::ostream* out) { *out << reference.profile; }

class BertReferenceNumbers : public testing::TestWithParam<BertReference> {};

TEST_P(BertReferenceNumbers, HoldOnOneAndSixteenNodes) {
  const BertReference& reference = GetParam();
  const Plan plan = plan_on(bundled(reference.profile), 1, 32);
  expect_plan_values(plan, reference.plan_values);
  expect_flags(plan.command, reference.flags);
  EXPECT_EQ(plan_on(bundled(reference.profile), 16, 32).grad_accum,
            reference.accumulation_on_sixteen_nodes);
}

INSTANTIATE_TEST_SUITE_P(
    Bundled, BertReferenceNumbers,
    testing::Values(
        // Phase 1 as the reference runs it.
        BertReference{"bert_pretrain",
                      {{"seq_len", 128},
                       {"micro_batch", 16},
                       {"grad_accum", 32},
                       {"global_batch", 16384},
                       {"lr", 4e-4},
                       {"warmup", 2000},
                       {"steps", 28125},
                       {"model", "large"}},
                      {{"--optimizer", "adamw"},
                       {"--dtype", "bf16"},
                       {"--max-pred", "20"},
                       {"--global-batch", "16384"}},
                      2},
        // The LAMB variant.
        BertReference{"bert_pretrain_lamb",
                      {{"grad_accum", 128}, {"global_batch", 65536}, {"lr", 6e-3}, {"steps", 7032}},
                      {{"--optimizer", "lamb"}, {"--lr", "0.006"}},
                      8},
        // Phase 2: sequence length 512.
        BertReference{"bert_pretrain_ph2",
                      {{"seq_len", 512},
                       {"micro_batch", 2},
                       {"grad_accum", 512},
                       {"global_batch", 32768},
                       {"steps", 1563},
                       {"warmup", 781},
                       {"lr", 2.8e-4}},
                      {{"--max-pred", "80"}},
                      32}),
    [](const testing::TestParamInfo<BertReference>& param_info) {
      return param_info.param.profile;
    });

TEST(BertTiny, SameGlobalBatchOnOneTwoAndFourCpuNodes) {
  for (const auto& [nodes, accumulation] : {std::pair{1, 8}, {2, 4}, {4, 2}}) {
    const Plan plan = plan_on(bundled("bert_tiny"), nodes, 0);
    expect_plan_values(plan, {{"workers_per_node", 1},
                              {"world_size", nodes},
                              {"grad_accum", accumulation},
                              {"global_batch", 64},
                              {"steps", 40},
                              {"checkpoint_every", 10},
                              {"tasks_per_node", 1}});
    expect_flags(plan.command, {{"--model", "tiny"}});
  }
}

TEST(Llama2Nxd, TensorParallelEightOnSixteenTrn1) {
  const Plan plan = plan_on(bundled("llama2_7b_nxd"), 16, 32);
  EXPECT_EQ(plan.launch, LaunchMode::kTorchrun);
  expect_plan_values(plan, {{"world_size", 512},
                            {"tensor_parallel", 8},
                            {"data_parallel", 64},
                            {"grad_accum", 16},
                            {"global_batch", 1024},
                            {"seq_len", 4096},
                            {"tasks_per_node", 1},
                            {"processes_per_task", 32}});
  EXPECT_EQ(plan.command[1], "tp_zero1_llama2_7b_hf_pretrain.py");
  expect_flags(plan.command, {{"--tensor_parallel_size", "8"},
                              {"--batch_size", "1"},
                              {"--grad_accum_usteps", "16"},
                              {"--lr", "0.0003"},
                              {"--seq_len", "4096"}});
  EXPECT_THAT(plan.command, Contains("--use_zero_1"));
  EXPECT_EQ(plan.env.at("NEURON_FUSE_SOFTMAX"), "1");
  // One node: dp 4, accumulation 256.
  EXPECT_EQ(plan_on(bundled("llama2_7b_nxd"), 1, 32).grad_accum, 256);
}

// llama2_7b: the same numbers with the bundled trainer, one task per NeuronCore, and only
// options pretrain-lm defines.
TEST(Llama2SevenB, BundledTrainerTensorParallelEightWithZeroOneOnFourTrn1) {
  const Plan plan = plan_on(bundled("llama2_7b"), 4, 32);
  EXPECT_EQ(plan.launch, LaunchMode::kPerCore);
  expect_plan_values(plan, {{"world_size", 128},
                            {"tensor_parallel", 8},
                            {"data_parallel", 16},
                            {"grad_accum", 64},
                            {"global_batch", 1024},
                            {"seq_len", 4096},
                            {"steps", 10000},
                            {"warmup", 100}});
  ASSERT_GE(plan.command.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(plan.command.begin(), plan.command.begin() + 4),
            (std::vector<std::string>{"python3", "-m", "trn_trainer", "pretrain-lm"}));
  expect_flags(plan.command, {{"--model", "7b"},
                              {"--tensor-parallel", "8"},
                              {"--micro-batch", "1"},
                              {"--global-batch", "1024"},
                              {"--lr", "0.0003"}});
  EXPECT_THAT(plan.command, Contains("--zero1"));
  const auto text = trainer_source();
  for (const auto& word : plan.command) {
    if (word.starts_with("--")) {
      EXPECT_NE(text.str().find("\"" + word + "\""), std::string::npos)
          << word << " is not an option of python3 -m trn_trainer pretrain-lm";
    }
  }
}

// llama3_8b and llama3_70b: TorchNeuron's native path, one torchrun per node starting a worker
// per logical NeuronCore: 64 on a trn2.48xlarge at the profiles' logical NeuronCore config 2.
TEST(Llama3, NativeTorchrunOnFourTrn2AtLogicalConfigTwo) {
  struct Expected {
    const char* name;
    std::int64_t tp, dp, accumulation;
  };
  for (const auto& [name, tp, dp, accumulation] :
       {Expected{"llama3_8b", 4, 64, 8}, Expected{"llama3_70b", 8, 32, 16}}) {
    const Profile profile = bundled(name);
    EXPECT_EQ(profile.instance_type, "trn2.48xlarge") << name;
    EXPECT_EQ(profile.env.at("NEURON_LOGICAL_NC_CONFIG"), "2") << name;
    const auto cores = planned_neuron_cores(profile.instance_type, "the profile's instance_type",
                                            requested_lnc(profile.env, std::nullopt));
    ASSERT_EQ(cores, 64) << name;
    auto request = plan_test::on(4, cores);
    request.cluster.instance_type = profile.instance_type;
    const Plan plan = make_plan(profile, request);
    EXPECT_EQ(plan.launch, LaunchMode::kTorchrun) << name;
    expect_plan_values(plan, {{"world_size", 256},
                              {"tensor_parallel", tp},
                              {"data_parallel", dp},
                              {"grad_accum", accumulation},
                              {"global_batch", 512},
                              {"seq_len", 8192}});
    for (const auto* word : {"--native", "--compile"}) EXPECT_THAT(plan.command, Contains(word));
    expect_flags(plan.command, {{"--device", "neuron"}, {"--tensor-parallel", std::to_string(tp)}});
  }
}

TEST(Llama3, PlansOnEveryTrainium3TypeByItsLogicalCores) {
  const Profile profile = bundled("llama3_8b");
  for (const auto& [type, cores] : {std::pair{"trn3.48xlarge", 64},
                                    {"trn3p.48xlarge", 64},
                                    {"trn3e.24xlarge", 16},
                                    {"trn3pd98.3xlarge", 4}}) {
    ASSERT_EQ(planned_neuron_cores(type, "--instance-type", requested_lnc(profile.env, "1")),
              cores)
        << type;  // the profile's env wins over the environment's 1
    auto request = plan_test::on(4, cores);
    request.cluster.instance_type = type;
    const Plan plan = make_plan(profile, request);
    EXPECT_EQ(plan.world_size, 4 * cores) << type;
    EXPECT_EQ(plan.data_parallel, 4 * cores / 4) << type;
  }
}

}  // namespace
