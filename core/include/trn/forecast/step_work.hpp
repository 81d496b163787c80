#pragma once

#include <cstdint>
#include <string_view>

#include "trn/forecast/model_shape.hpp"
#include "trn/forecast/step_model.hpp"

namespace trn::forecast {

// Sets what the model makes `shape` do (FLOPs, parameters, the tensor-parallel and pipeline
// bytes, the attention scores, the optimizer's traffic) from its micro-batch and parallel
// degrees, which must be set. One place for a plan's shape and a published point's.
void set_model_work(StepShape& shape, const ModelShape& model, std::int64_t seq_len,
                    std::string_view optimizer);

}  // namespace trn::forecast
