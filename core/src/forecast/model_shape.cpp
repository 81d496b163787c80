#include "trn/forecast/model_shape.hpp"

#include <algorithm>
#include <array>

namespace trn::forecast {
namespace {

// BERT sizes as the trainer builds them (trainer/trn_trainer/models/bert_config.py: Google's tiny
// and mini, the published base and large); Llama 2 from Meta's published configurations
// (params.json of each release, as in Hugging Face's LlamaConfig).
constexpr std::array kShapes{
    ModelShape{"bert-tiny", "bert", 2, 128, 512, 30522, 2, 2, false},
    ModelShape{"bert-mini", "bert", 4, 256, 1024, 30522, 4, 4, false},
    ModelShape{"bert-base", "bert", 12, 768, 3072, 30522, 12, 12, false},
    ModelShape{"bert-large", "bert", 24, 1024, 4096, 30522, 16, 16, false},
    ModelShape{"llama2-7b", "llama", 32, 4096, 11008, 32000, 32, 32, true},
    ModelShape{"llama2-13b", "llama", 40, 5120, 13824, 32000, 40, 40, true},
    ModelShape{"llama2-70b", "llama", 80, 8192, 28672, 32000, 64, 8, true},
};

double layer_parameters(const ModelShape& s) {
  const double h = static_cast<double>(s.hidden);
  const double kv_width = h * static_cast<double>(s.kv_heads) / static_cast<double>(s.heads);
  const double attention = 2 * h * h + 2 * h * kv_width;  // q and o; k and v
  const double mlp = (s.gated_mlp ? 3.0 : 2.0) * h * static_cast<double>(s.intermediate);
  return attention + mlp;
}

bool untied_output(const ModelShape& s) { return s.family == "llama"; }

}  // namespace

const ModelShape* find_model_shape(std::string_view name) {
  for (const auto& shape : kShapes) {
    if (shape.name == name) return &shape;
  }
  return nullptr;
}

std::vector<std::string_view> model_shape_names() {
  std::vector<std::string_view> names;
  names.reserve(kShapes.size());
  for (const auto& shape : kShapes) names.push_back(shape.name);
  return names;
}

double parameter_count(const ModelShape& s) {
  const double embedding = static_cast<double>(s.vocab) * static_cast<double>(s.hidden);
  return static_cast<double>(s.layers) * layer_parameters(s) +
         embedding * (untied_output(s) ? 2.0 : 1.0);
}

double training_flops_per_sequence(const ModelShape& s, std::int64_t seq_len) {
  const double tokens = static_cast<double>(seq_len);
  const double layers = static_cast<double>(s.layers);
  const double h = static_cast<double>(s.hidden);
  double flops = 6 * layers * layer_parameters(s) * tokens + 12 * layers * h * tokens * tokens;
  if (untied_output(s)) flops += 6 * static_cast<double>(s.vocab) * h * tokens;
  return flops;
}

double tensor_parallel_bytes(const ModelShape& s, std::int64_t seq_len, std::int64_t micro_batch,
                             std::int64_t pipeline_parallel) {
  const double layers_per_stage = static_cast<double>(s.layers) /
                                  static_cast<double>(std::max<std::int64_t>(1, pipeline_parallel));
  const double activation_bytes = static_cast<double>(micro_batch) * static_cast<double>(seq_len) *
                                  static_cast<double>(s.hidden) * 2;
  return 4 * layers_per_stage * activation_bytes;
}

double attention_scores_per_sequence(const ModelShape& s, std::int64_t seq_len) {
  const double tokens = static_cast<double>(seq_len);
  return static_cast<double>(s.layers) * static_cast<double>(s.heads) * tokens * tokens;
}

double pipeline_bytes(const ModelShape& s, std::int64_t seq_len, std::int64_t micro_batch) {
  return 2 * static_cast<double>(micro_batch) * static_cast<double>(seq_len) *
         static_cast<double>(s.hidden) * 2;
}

}  // namespace trn::forecast
