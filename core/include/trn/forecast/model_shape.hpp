#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trn::forecast {

// The architecture of a transformer the forecast prices: what its parameter count and its
// training FLOPs per sequence follow from (docs/planner.md#model-size).
struct ModelShape {
  std::string_view name;    // the profile's forecast_model: "bert-large", "llama2-7b", ...
  std::string_view family;  // "bert" or "llama": each family has its own published calibration
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t intermediate = 0;  // the feed-forward width
  std::int64_t vocab = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;  // grouped-query attention (Llama 2 70B: 8); = heads otherwise
  bool gated_mlp = false;     // SwiGLU: three feed-forward matrices instead of two
};

// The shape called `name`, or nullptr.
const ModelShape* find_model_shape(std::string_view name);
std::vector<std::string_view> model_shape_names();

// Weights of the transformer layers and the embeddings (and Llama's untied output layer);
// biases and norms are left out (under 0.1%).
double parameter_count(const ModelShape& shape);

// Training FLOPs of one sequence of `seq_len` tokens: forward and backward of every matrix
// multiply (6 x layer weights x tokens), the attention scores and values (12 x layers x hidden x
// seq_len^2) and Llama's output layer. For BERT this is the trainer's 12 L H S (6H + S).
double training_flops_per_sequence(const ModelShape& shape, std::int64_t seq_len);

// Bytes one worker all-reduces in its tensor-parallel group per micro-step (Megatron's split of
// a block: two activation all-reduces forward, two backward, per layer of its pipeline stage;
// bf16 values of micro_batch x seq_len x hidden).
double tensor_parallel_bytes(const ModelShape& shape, std::int64_t seq_len,
                             std::int64_t micro_batch, std::int64_t pipeline_parallel);

// Attention scores of one sequence over all layers and heads: layers x heads x seq_len^2.
double attention_scores_per_sequence(const ModelShape& shape, std::int64_t seq_len);

// Bytes a pipeline stage sends and receives per micro-step: its activation forward and the
// gradient back, bf16 values of micro_batch x seq_len x hidden each way.
double pipeline_bytes(const ModelShape& shape, std::int64_t seq_len, std::int64_t micro_batch);

}  // namespace trn::forecast
