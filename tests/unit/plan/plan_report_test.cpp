// plan.json and the printed plan.
#include "trn/plan/plan_report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "plan_test_support.hpp"
#include "trn/plan/profile_keys.hpp"

namespace {

using plan_test::bundled;
using testing::HasSubstr;
using namespace trn::plan;

Plan sixteen_node_plan() {
  PlanRequest request = plan_test::on(16, 32);
  for (int i = 1; i <= 16; ++i) request.cluster.node_names.push_back("trn-st-" + std::to_string(i));
  request.cluster.job_id = 123;
  return make_plan(bundled("bert_pretrain"), request);
}

TEST(PlanJson, KeysNameWhatTheyHold) {
  const auto json = to_json(sixteen_node_plan());
  EXPECT_EQ(json.at("profile"), "bert_pretrain");
  EXPECT_EQ(json.at("job_id"), 123);
  EXPECT_EQ(json.at("nodes"), 16);
  EXPECT_EQ(json.at("node_list").size(), 16u);
  EXPECT_EQ(json.at("node_list").at(0), "trn-st-1");
  EXPECT_EQ(json.at("neuron_devices"), true);
  EXPECT_EQ(json.at("workers_per_node"), 32);
  EXPECT_EQ(json.at("world_size"), 512);
  EXPECT_EQ(json.at("tensor_parallel"), 1);
  EXPECT_EQ(json.at("pipeline_parallel"), 1);
  EXPECT_EQ(json.at("data_parallel"), 512);
  EXPECT_EQ(json.at("micro_batch"), 16);
  EXPECT_EQ(json.at("grad_accum"), 2);
  EXPECT_EQ(json.at("global_batch"), 16384);
  EXPECT_DOUBLE_EQ(json.at("lr").get<double>(), 4e-4);
  EXPECT_EQ(json.at("scaling"), "strong");
  EXPECT_EQ(json.at("lr_scaling"), "none");
  EXPECT_EQ(json.at("steps"), 28125);
  EXPECT_EQ(json.at("warmup"), 2000);
  EXPECT_EQ(json.at("seq_len"), 128);
  EXPECT_EQ(json.at("launch_mode"), "per-core");
  EXPECT_EQ(json.at("tasks_per_node"), 32);
  EXPECT_EQ(json.at("processes_per_task"), 1);
  EXPECT_EQ(json.at("compile_steps"), 5);
  EXPECT_EQ(json.at("checkpoint_every"), 1000);
  EXPECT_EQ(json.at("keep_checkpoints"), 3);
  EXPECT_EQ(json.at("run_dir"), "runs/bert_pretrain-123");
  EXPECT_EQ(json.at("requeue"), "node-failure");
  EXPECT_EQ(json.at("command").at(0), "python3");
  EXPECT_EQ(json.at("env").at("NEURON_RT_STOCHASTIC_ROUNDING_EN"), "1");
}

TEST(PlanJson, MissingValuesAreNull) {
  Profile profile = trn::plan::parse_profile(plan_test::minimal_profile, "<t>", "bare");
  const auto json = to_json(plan_test::plan_on(profile, 1, 0));
  EXPECT_TRUE(json.at("job_id").is_null());
  EXPECT_TRUE(json.at("lr").is_null());
  EXPECT_TRUE(json.at("seq_len").is_null());
  EXPECT_TRUE(json.at("node_list").empty());
  EXPECT_EQ(json.at("neuron_devices"), false);
}

TEST(CompileInputs, IgnoreTheJobButNotTheShapes) {
  PlanRequest request = plan_test::on(2, 32);
  request.cluster.job_id = 1;
  Profile profile = bundled("bert_pretrain");
  apply_override(profile, "env.CACHE", "{run_dir}/cache");
  const auto first = compile_inputs(make_plan(profile, request));
  request.cluster.job_id = 2;  // a new job: a new run directory
  const auto second = compile_inputs(make_plan(profile, request));
  EXPECT_EQ(first, second);
  EXPECT_EQ(first.at("env").at("CACHE"), "{run_dir}/cache");
  EXPECT_THAT(first.at("compile_command").dump(), HasSubstr("\"--output\",\"{run_dir}\""));
  EXPECT_EQ(first.at("grad_accum"), 16);
  std::vector<std::string> keys;
  for (const auto& [key, value] : first.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"compile_command", "data_parallel", "env", "grad_accum",
                                            "launch_mode", "micro_batch", "neuron_devices", "nodes",
                                            "optimizer", "pipeline_parallel", "seq_len",
                                            "tensor_parallel", "workers_per_node"}));

  Profile other_batch = profile;
  apply_override(other_batch, "micro_batch", "8");
  EXPECT_NE(compile_inputs(make_plan(other_batch, request)), second);
  Profile other_optimizer = profile;  // LAMB's step is another graph
  apply_override(other_optimizer, "optimizer", "lamb");
  EXPECT_NE(compile_inputs(make_plan(other_optimizer, request)), second);
  EXPECT_NE(compile_inputs(make_plan(profile, plan_test::on(4, 32))), second);
}

TEST(PlanText, IsAnAlignedTableWithTheArithmetic) {
  const std::string text = render_plan_text(sixteen_node_plan());
  EXPECT_THAT(text, HasSubstr("nodes             16 (trn-st-1, ..., trn-st-16)\n"));
  EXPECT_THAT(text, HasSubstr("workers per node  32 NeuronCores\n"));
  EXPECT_THAT(text, HasSubstr("world size        512 = tp 1 x pp 1 x dp 512\n"));
  EXPECT_THAT(text, HasSubstr("accumulation      2\n"));
  EXPECT_THAT(text, HasSubstr("global batch      16384 = 16 x 2 x 512 (strong scaling)\n"));
  EXPECT_THAT(text, HasSubstr("learning rate     0.0004\n"));
  EXPECT_THAT(text, HasSubstr("launch            per-core: 32 tasks per node\n"));
  EXPECT_THAT(text, HasSubstr("run dir           runs/bert_pretrain-123\n"));
  EXPECT_THAT(text, HasSubstr("command           python3 -m trn_trainer pretrain --data "));
  // Every line is "label, padding, value" with the values in one column.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    ASSERT_GE(line.size(), 19u) << line;
    EXPECT_EQ(line[17], ' ') << line;
    EXPECT_NE(line[18], ' ') << line;
  }
}

TEST(PlanText, ShowsTheWeakScalingRule) {
  Profile lamb = bundled("bert_pretrain_lamb");
  apply_override(lamb, "scaling", "weak");
  apply_override(lamb, "lr_scaling", "sqrt");
  const std::string text = render_plan_text(plan_test::plan_on(lamb, 4, 32));
  EXPECT_THAT(text, HasSubstr("global batch      262144 = 16 x 128 x 128 (weak scaling)\n"));
  EXPECT_THAT(text, HasSubstr("learning rate     0.012 (sqrt rule from 0.006 at global batch "
                              "65536)\n"));
  const std::string torchrun =
      render_plan_text(plan_test::plan_on(bundled("llama2_7b_nxd"), 16, 32));
  EXPECT_THAT(torchrun,
              HasSubstr("launch            torchrun: 1 task per node, 32 processes each\n"));
}

}  // namespace
