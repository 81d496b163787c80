#include "trn/forecast/worker_memory.hpp"

#include <gtest/gtest.h>

namespace trn::forecast {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// llama2_7b as the profile runs it on 4 trn1.32xlarge: tp 8, dp 16, ZeRO-1, seq 4096,
// micro-batch 1.
WorkerMemoryInputs seven_b(bool selective) {
  return {.tensor_parallel = 8,
          .pipeline_parallel = 1,
          .data_parallel = 16,
          .micro_batch = 1,
          .seq_len = 4096,
          .zero1 = true,
          .bf16 = true,
          .selective_recompute = selective};
}

TEST(WorkerMemory, ActivationsFollowKorthikantisFormula) {
  const auto& shape = *find_model_shape("llama2-7b");
  const double sbh = 4096.0 * 1 * 4096;
  const double logits = 4.0 * 4096 * 32000 / 8;
  // 10 + 24/8 + 5 * 32 * 4096 / (4096 * 8) = 33 per layer; 13 with selective recomputation.
  EXPECT_DOUBLE_EQ(worker_memory(shape, seven_b(false)).activations, 33 * sbh * 32 + logits);
  EXPECT_DOUBLE_EQ(worker_memory(shape, seven_b(true)).activations, 13 * sbh * 32 + logits);
  // Sequence parallelism splits the norms' and residuals' 10 too: 34/8 with selective
  // recomputation, 34/8 + 20 without.
  auto split = seven_b(true);
  split.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(worker_memory(shape, split).activations, 34.0 / 8 * sbh * 32 + logits);
  split.selective_recompute = false;
  EXPECT_DOUBLE_EQ(worker_memory(shape, split).activations, (34.0 / 8 + 20) * sbh * 32 + logits);
}

TEST(WorkerMemory, StateFollowsTheBf16RecipeAndZero1) {
  const auto& shape = *find_model_shape("llama2-7b");
  const double params = parameter_count(shape) / 8;
  const auto memory = worker_memory(shape, seven_b(true));
  EXPECT_DOUBLE_EQ(memory.weights, 6 * params);    // bf16 weights and fp32 master copies
  EXPECT_DOUBLE_EQ(memory.gradients, 6 * params);  // fp32 sums and a micro-step's bf16 ones
  // Two fp32 moments and the fp32 values of a part, over dp 16 (parallel/zero1.py).
  EXPECT_DOUBLE_EQ(memory.optimizer, 12 * params / 16);
  EXPECT_DOUBLE_EQ(memory.step_copy, 4 * params);
  auto without_zero1 = seven_b(true);
  without_zero1.zero1 = false;
  EXPECT_DOUBLE_EQ(worker_memory(shape, without_zero1).optimizer, 8 * params);
  auto fp32 = seven_b(true);
  fp32.bf16 = false;
  EXPECT_DOUBLE_EQ(worker_memory(shape, fp32).weights, 4 * params);
  EXPECT_DOUBLE_EQ(worker_memory(shape, fp32).gradients, 4 * params);
}

TEST(WorkerMemory,
     SevenBAtTensorParallel8FitsATrn1CoreWithSelectiveRecomputationAndSequenceParallelism) {
  const auto& shape = *find_model_shape("llama2-7b");
  const auto core = device_memory_per_worker("trn1.32xlarge", 32);
  ASSERT_TRUE(core.has_value());
  EXPECT_DOUBLE_EQ(*core, 16 * kGiB);
  auto as_profiled = seven_b(true);
  as_profiled.sequence_parallel = true;
  EXPECT_LT(worker_memory(shape, as_profiled).peak(), *core);     // about 13.1 GiB
  EXPECT_GT(worker_memory(shape, seven_b(true)).peak(), *core);   // about 16.6 GiB
  EXPECT_GT(worker_memory(shape, seven_b(false)).peak(), *core);  // about 26.6 GiB
}

TEST(WorkerMemory, DeviceMemoryPerWorkerFollowsTheNodesWorkers) {
  EXPECT_DOUBLE_EQ(*device_memory_per_worker("trn2.48xlarge", 64), 24 * kGiB);   // LNC 2
  EXPECT_DOUBLE_EQ(*device_memory_per_worker("trn2.48xlarge", 128), 12 * kGiB);  // LNC 1
  EXPECT_DOUBLE_EQ(*device_memory_per_worker("trn1.2xlarge", 2), 16 * kGiB);
  EXPECT_FALSE(device_memory_per_worker("p5.48xlarge", 8).has_value());
  EXPECT_FALSE(device_memory_per_worker("", 2).has_value());
  EXPECT_FALSE(device_memory_per_worker("trn1.32xlarge", 0).has_value());
}

}  // namespace
}  // namespace trn::forecast
