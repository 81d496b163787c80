#include "trn/forecast/step_model.hpp"

#include <gtest/gtest.h>

#include "trn/common/error.hpp"

namespace trn::forecast {
namespace {

NodeHardware hardware() {
  NodeHardware hw;
  hw.instance_type = "test";
  hw.workers = 4;
  hw.peak_flops_per_worker = 1e12;
  hw.memory_bytes_per_s_per_worker = 1e9;
  hw.intra_node_bytes_per_s = 1e9;
  hw.inter_node_bytes_per_s = 1e8;
  hw.latency_s = 0;
  return hw;
}

// 4 workers a node, micro-batch 2; the data-parallel degree and the global batch follow from
// the parallel degrees.
StepShape shape(std::int64_t nodes, std::int64_t accumulation, std::int64_t tp = 1,
                std::int64_t pp = 1) {
  StepShape s;
  s.nodes = nodes;
  s.workers_per_node = 4;
  s.tensor_parallel = tp;
  s.pipeline_parallel = pp;
  s.data_parallel = nodes * 4 / (tp * pp);
  s.micro_batch = 2;
  s.grad_accum = accumulation;
  s.global_batch = 2 * accumulation * s.data_parallel;
  s.flops_per_sequence = 1e11;
  s.parameters = 1e6;
  return s;
}

TEST(StepModel, EachTermFollowsItsFormula) {
  Calibration c;
  c.mfu = 0.5;
  c.slowdown_per_doubling = 0.01;
  c.step_s_per_doubling = 0.1;
  const StepForecast f = forecast_step(shape(4, 8), hardware(), c);
  EXPECT_DOUBLE_EQ(f.micro_step_s, 2 * 1e11 / (1e12 * 0.5));
  EXPECT_DOUBLE_EQ(f.compute_s, 8 * 0.4 * 1.02);  // 4 nodes: two doublings
  // 4 replicas in a node, then 4 nodes: 2(r-1)/r x 4 MB each time
  EXPECT_NEAR(f.allreduce_s, 1.5 * 4e6 / 1e9 + 2.0 * 3 / 4 * 4e6 * 1 / 1e8, 1e-12);
  EXPECT_DOUBLE_EQ(f.optimizer_s, 1e6 * 32 / 1e9);
  EXPECT_DOUBLE_EQ(f.overhead_s, 0.2);
  EXPECT_DOUBLE_EQ(f.step_s, f.compute_s + f.allreduce_s + f.optimizer_s + f.overhead_s);
  EXPECT_DOUBLE_EQ(f.seq_per_s, 2 * 8 * 16 / f.step_s);
}

// The fitted per-node terms grow as a tree's depth, not with every node: from 16 to 1,024
// nodes they grow 2.5x, not 68x.
TEST(StepModel, PerNodeTermsGrowWithLog2OfTheNodes) {
  EXPECT_EQ(node_growth(1), 0);
  EXPECT_EQ(node_growth(2), 1);
  EXPECT_EQ(node_growth(16), 4);
  EXPECT_EQ(node_growth(1024), 10);
  Calibration c;
  c.mfu = 0.5;
  c.step_s_per_doubling = 0.1;
  EXPECT_DOUBLE_EQ(forecast_step(shape(1024, 1), hardware(), c).overhead_s, 1.0);
}

TEST(StepModel, AttentionScoresCostTheirMemoryTrafficUnlessTheMicroStepIsMeasured) {
  Calibration c;
  c.mfu = 0.5;
  c.attention_bytes_per_score = 10;
  StepShape s = shape(1, 4);
  s.attention_scores = 1e6;
  const StepForecast f = forecast_step(s, hardware(), c);
  EXPECT_DOUBLE_EQ(f.attention_s, 1e6 * 10 / 1e9);
  EXPECT_DOUBLE_EQ(f.micro_step_s, 2 * 1e11 / (1e12 * 0.5) + f.attention_s);
  c.measured_micro_step_s = 0.3;
  c.measured_work = 2e11;
  EXPECT_EQ(forecast_step(s, hardware(), c).attention_s, 0);
}

TEST(StepModel, PipelineSendsCrossNeuronLinkInANodeAndEfaBetweenNodes) {
  Calibration c;
  c.mfu = 0.5;
  NodeHardware hw = hardware();
  hw.workers_per_device = 2;
  StepShape s = shape(2, 4, 2, 2);
  s.pipeline_bytes = 4e6;
  EXPECT_DOUBLE_EQ(forecast_step(s, hw, c).pipeline_s, 4e6 / (1e9 / 2));  // 4 workers: one node
  s = shape(2, 4, 4, 2);  // 8 workers a pipeline: across the two nodes
  s.pipeline_bytes = 4e6;
  const StepForecast f = forecast_step(s, hw, c);
  EXPECT_DOUBLE_EQ(f.pipeline_s, 4e6 / (1e8 / 4));
  EXPECT_DOUBLE_EQ(f.micro_step_s, 2 * 1e11 / 8 / (1e12 * 0.5) + f.pipeline_s);
  s.pipeline_parallel = 1;
  s.tensor_parallel = 8;
  EXPECT_EQ(forecast_step(s, hw, c).pipeline_s, 0);
}

TEST(StepModel, LambMovesMoreBytesPerParameterThanAdamW) {
  EXPECT_EQ(optimizer_bytes_per_parameter("adamw"), 32);
  EXPECT_EQ(optimizer_bytes_per_parameter("lamb"), 48);
  EXPECT_THROW(optimizer_bytes_per_parameter("sgd"), Error);
  EXPECT_TRUE(priced_optimizer("adamw") && priced_optimizer("lamb"));
  EXPECT_FALSE(priced_optimizer("sgd"));
  Calibration c;
  c.mfu = 0.5;
  StepShape s = shape(1, 1);
  s.optimizer_bytes_per_parameter = 48;
  EXPECT_DOUBLE_EQ(forecast_step(s, hardware(), c).optimizer_s, 1e6 * 48 / 1e9);
}

TEST(StepModel, OneNodeHasNoCrossNodeTerms) {
  Calibration c;
  c.mfu = 0.5;
  c.slowdown_per_doubling = 0.5;
  c.step_s_per_doubling = 10;
  const StepForecast f = forecast_step(shape(1, 8), hardware(), c);
  EXPECT_DOUBLE_EQ(f.compute_s, 8 * 0.4);
  EXPECT_DOUBLE_EQ(f.overhead_s, 0);
  EXPECT_NEAR(f.allreduce_s, 1.5 * 4e6 / 1e9, 1e-12);
}

TEST(StepModel, TensorParallelSplitsTheWorkAndPipelineAddsFillAndDrain) {
  Calibration c;
  c.mfu = 0.5;
  const StepShape s = shape(2, 4, 2, 2);
  const StepForecast f = forecast_step(s, hardware(), c);
  EXPECT_DOUBLE_EQ(f.micro_step_s, 2 * 1e11 / 4 / (1e12 * 0.5));
  EXPECT_DOUBLE_EQ(f.compute_s, (4 + 1) * f.micro_step_s);
}

TEST(StepModel, TensorParallelActivationsAreAllReducedOverTheSharedNeuronLink) {
  Calibration c;
  c.mfu = 0.5;
  NodeHardware hw = hardware();
  hw.workers_per_device = 2;
  StepShape s = shape(1, 4, 4);
  s.tensor_parallel_bytes = 3e6;
  const StepForecast f = forecast_step(s, hw, c);
  EXPECT_DOUBLE_EQ(f.tensor_parallel_s, 2.0 * 3 / 4 * 3e6 / (1e9 / 2));
  EXPECT_DOUBLE_EQ(f.micro_step_s, 2 * 1e11 / 4 / (1e12 * 0.5) + f.tensor_parallel_s);
  s = shape(1, 4);
  s.tensor_parallel_bytes = 3e6;
  EXPECT_EQ(forecast_step(s, hw, c).tensor_parallel_s, 0);  // no group, no all-reduce
}

TEST(StepModel, AMeasuredMicroStepScalesWithTheWork) {
  Calibration c;
  c.measured_micro_step_s = 0.3;
  c.measured_work = 1e11;  // one sequence
  c.measured_optimizer_s = 0.05;
  c.measured_parameters = 2e6;
  const StepForecast f = forecast_step(shape(1, 1), hardware(), c);
  EXPECT_DOUBLE_EQ(f.micro_step_s, 0.6);
  EXPECT_DOUBLE_EQ(f.optimizer_s, 0.025);
}

TEST(StepModel, ShapesThatCannotRunAreErrors) {
  Calibration c;
  c.mfu = 0.5;
  StepShape s = shape(2, 4);
  s.data_parallel = 3;
  EXPECT_THROW(forecast_step(s, hardware(), c), Error);
  s = shape(2, 4);
  s.grad_accum = 0;
  EXPECT_THROW(forecast_step(s, hardware(), c), Error);
  EXPECT_THROW(forecast_step(shape(1, 1), hardware(), Calibration{}), Error);  // no MFU, no run
}

}  // namespace
}  // namespace trn::forecast
