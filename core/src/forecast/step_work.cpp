#include "trn/forecast/step_work.hpp"

#include <algorithm>

namespace trn::forecast {

void set_model_work(StepShape& shape, const ModelShape& model, std::int64_t seq_len,
                    std::string_view optimizer) {
  shape.flops_per_sequence = training_flops_per_sequence(model, seq_len);
  shape.parameters = parameter_count(model);
  shape.tensor_parallel_bytes =
      tensor_parallel_bytes(model, seq_len, shape.micro_batch, shape.pipeline_parallel);
  const auto model_parallel = static_cast<double>(
      std::max<std::int64_t>(1, shape.tensor_parallel * shape.pipeline_parallel));
  shape.attention_scores = static_cast<double>(shape.micro_batch) *
                           attention_scores_per_sequence(model, seq_len) / model_parallel;
  shape.pipeline_bytes = pipeline_bytes(model, seq_len, shape.micro_batch);
  shape.optimizer_bytes_per_parameter = optimizer_bytes_per_parameter(optimizer);
}

}  // namespace trn::forecast
