// The profiles shipped in launcher/profiles: each loads, plans, and holds the reference numbers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "plan_test_support.hpp"
#include "trn/plan/plan.hpp"
#include "trn/plan/profile_search.hpp"

namespace {

using plan_test::bundled;
using plan_test::plan_on;
using testing::Contains;
using namespace trn::plan;

std::string flag_value(const std::vector<std::string>& argv, const std::string& flag) {
  const auto it = std::find(argv.begin(), argv.end(), flag);
  return it == argv.end() || it + 1 == argv.end() ? "(absent)" : *(it + 1);
}

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

std::string test_name(const testing::TestParamInfo<ProfileLocation>& param_info) {
  return param_info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Bundled, EveryBundledProfile,
                         testing::ValuesIn(available_profiles({plan_test::bundled_dir})),
                         test_name);

// Every --flag the BERT profiles give our trainer must be one its command line defines.
TEST(BundledProfiles, UseOnlyFlagsOurTrainerHas) {
  std::ifstream cli(plan_test::source_dir / "trainer" / "trn_trainer" / "cli.py");
  std::stringstream text;
  text << cli.rdbuf();
  ASSERT_NE(text.str().find("\"--micro-batch\""), std::string::npos) << "cli.py not found";
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

TEST(BertPretrain, PhaseOneDefaultsOfTheReference) {
  const Plan plan = plan_on(bundled("bert_pretrain"), 1, 32);
  EXPECT_EQ(plan.seq_len, 128);
  EXPECT_EQ(plan.micro_batch, 16);
  EXPECT_EQ(plan.grad_accum, 32);
  EXPECT_EQ(plan.global_batch, 16384);
  EXPECT_DOUBLE_EQ(*plan.lr, 4e-4);
  EXPECT_EQ(plan.warmup, 2000);
  EXPECT_EQ(plan.steps, 28125);
  EXPECT_EQ(plan.model, "large");
  EXPECT_EQ(flag_value(plan.command, "--optimizer"), "adamw");
  EXPECT_EQ(flag_value(plan.command, "--dtype"), "bf16");
  EXPECT_EQ(flag_value(plan.command, "--max-pred"), "20");
  EXPECT_EQ(flag_value(plan.command, "--global-batch"), "16384");
  EXPECT_EQ(plan_on(bundled("bert_pretrain"), 16, 32).grad_accum, 2);
}

TEST(BertPretrainLamb, LambVariant) {
  const Plan plan = plan_on(bundled("bert_pretrain_lamb"), 1, 32);
  EXPECT_EQ(plan.grad_accum, 128);
  EXPECT_EQ(plan.global_batch, 65536);
  EXPECT_DOUBLE_EQ(*plan.lr, 6e-3);
  EXPECT_EQ(plan.steps, 7032);
  EXPECT_EQ(flag_value(plan.command, "--optimizer"), "lamb");
  EXPECT_EQ(flag_value(plan.command, "--lr"), "0.006");
  EXPECT_EQ(plan_on(bundled("bert_pretrain_lamb"), 16, 32).grad_accum, 8);
}

TEST(BertPretrainPhase2, SequenceLength512) {
  const Plan plan = plan_on(bundled("bert_pretrain_ph2"), 1, 32);
  EXPECT_EQ(plan.seq_len, 512);
  EXPECT_EQ(plan.micro_batch, 2);
  EXPECT_EQ(plan.grad_accum, 512);
  EXPECT_EQ(plan.global_batch, 32768);
  EXPECT_EQ(plan.steps, 1563);
  EXPECT_EQ(plan.warmup, 781);
  EXPECT_DOUBLE_EQ(*plan.lr, 2.8e-4);
  EXPECT_EQ(flag_value(plan.command, "--max-pred"), "80");
  EXPECT_EQ(plan_on(bundled("bert_pretrain_ph2"), 16, 32).grad_accum, 32);
}

TEST(BertTiny, SameGlobalBatchOnOneTwoAndFourCpuNodes) {
  for (const auto& [nodes, accumulation] : {std::pair{1, 8}, {2, 4}, {4, 2}}) {
    const Plan plan = plan_on(bundled("bert_tiny"), nodes, 0);
    EXPECT_EQ(plan.workers_per_node, 1);
    EXPECT_EQ(plan.world_size, nodes);
    EXPECT_EQ(plan.grad_accum, accumulation);
    EXPECT_EQ(plan.global_batch, 64);
    EXPECT_EQ(plan.steps, 40);
    EXPECT_EQ(plan.checkpoint_every, 10);
    EXPECT_EQ(plan.tasks_per_node, 1);
    EXPECT_EQ(flag_value(plan.command, "--model"), "tiny");
  }
}

TEST(Llama2Nxd, TensorParallelEightOnSixteenTrn1) {
  const Plan plan = plan_on(bundled("llama2_7b_nxd"), 16, 32);
  EXPECT_EQ(plan.launch, LaunchMode::kTorchrun);
  EXPECT_EQ(plan.tasks_per_node, 1);
  EXPECT_EQ(plan.processes_per_task, 32);
  EXPECT_EQ(plan.world_size, 512);
  EXPECT_EQ(plan.tensor_parallel, 8);
  EXPECT_EQ(plan.data_parallel, 64);
  EXPECT_EQ(plan.grad_accum, 16);
  EXPECT_EQ(plan.global_batch, 1024);
  EXPECT_EQ(plan.seq_len, 4096);
  EXPECT_EQ(plan.command[1], "tp_zero1_llama2_7b_hf_pretrain.py");
  EXPECT_EQ(flag_value(plan.command, "--tensor_parallel_size"), "8");
  EXPECT_EQ(flag_value(plan.command, "--batch_size"), "1");
  EXPECT_EQ(flag_value(plan.command, "--grad_accum_usteps"), "16");
  EXPECT_EQ(flag_value(plan.command, "--lr"), "0.0003");
  EXPECT_EQ(flag_value(plan.command, "--seq_len"), "4096");
  EXPECT_THAT(plan.command, Contains("--use_zero_1"));
  EXPECT_EQ(plan.env.at("NEURON_FUSE_SOFTMAX"), "1");
  // One node: dp 4, accumulation 256.
  EXPECT_EQ(plan_on(bundled("llama2_7b_nxd"), 1, 32).grad_accum, 256);
}

}  // namespace
