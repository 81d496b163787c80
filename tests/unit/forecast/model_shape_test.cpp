#include "trn/forecast/model_shape.hpp"

#include <gtest/gtest.h>

namespace trn::forecast {
namespace {

double billions(double value) { return value / 1e9; }

TEST(ModelShape, ParameterCountsMatchThePublishedSizes) {
  EXPECT_NEAR(parameter_count(*find_model_shape("bert-large")) / 1e6, 333, 5);  // 336M with biases
  EXPECT_NEAR(parameter_count(*find_model_shape("bert-base")) / 1e6, 108.5, 2);
  EXPECT_NEAR(billions(parameter_count(*find_model_shape("llama2-7b"))), 6.74, 0.02);
  EXPECT_NEAR(billions(parameter_count(*find_model_shape("llama2-13b"))), 13.0, 0.05);
  EXPECT_NEAR(billions(parameter_count(*find_model_shape("llama2-70b"))), 69.0, 0.2);
}

TEST(ModelShape, BertFlopsAreTheTrainersFormula) {
  // trainer/trn_trainer/models/bert_config.py: 12 L H S (6H + S)
  const double L = 24, H = 1024, S = 128;
  EXPECT_DOUBLE_EQ(training_flops_per_sequence(*find_model_shape("bert-large"), 128),
                   12 * L * H * S * (6 * H + S));
}

TEST(ModelShape, LlamaFlopsAreSixPerParameterPerTokenPlusAttention) {
  const ModelShape& llama = *find_model_shape("llama2-7b");
  const double tokens = 4096;
  const double six_n_d = 6 * parameter_count(llama) * tokens;
  const double flops = training_flops_per_sequence(llama, 4096);
  // The input embedding does no matrix multiply; attention adds 12 L H S^2.
  EXPECT_NEAR(flops / six_n_d,
              1.0 + (12.0 * 32 * 4096 * tokens * tokens - 6 * 32000.0 * 4096 * tokens) / six_n_d,
              1e-9);
}

TEST(ModelShape, TensorParallelBytesAreFourActivationAllReducesPerLayerOfTheStage) {
  // Llama 2 13B, pipeline 4: 10 layers per stage, micro-batch 1, seq 4,096, hidden 5,120, bf16
  EXPECT_DOUBLE_EQ(tensor_parallel_bytes(*find_model_shape("llama2-13b"), 4096, 1, 4),
                   4.0 * 10 * 4096 * 5120 * 2);
}

TEST(ModelShape, UnknownNamesAreNotFound) {
  EXPECT_EQ(find_model_shape("gpt-5"), nullptr);
  EXPECT_EQ(find_model_shape(""), nullptr);
  EXPECT_EQ(model_shape_names().size(), 7u);
}

}  // namespace
}  // namespace trn::forecast
