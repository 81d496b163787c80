#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace trn::forecast {

// What a published point is used for: calibrating a term of the model, or checking its
// prediction (never both).
enum class PointRole {
  kMicroStep,   // a release's one-node point: its micro-step time (BERT)
  kNetworkFit,  // the 16-node points the two per-node overhead terms are fitted to
  kFamilyFit,   // the point a model family's MFU is fitted to (Llama)
  kValidation,  // not fitted: the prediction's error is reported with every sweep
};

// One training throughput Neuron published for trn1.32xlarge (docs/planner.md#published).
struct PublishedPoint {
  std::string_view model;  // a forecast_model name
  std::string_view sdk;    // Neuron release
  std::int64_t seq_len = 0;
  std::int64_t nodes = 0;
  std::int64_t tensor_parallel = 1;
  std::int64_t pipeline_parallel = 1;
  std::int64_t micro_batch = 0;
  std::int64_t global_batch = 0;
  std::string_view setup;  // optimizer, precision and scaling as published
  double seq_per_s = 0;
  PointRole role = PointRole::kValidation;
  std::string_view source;
};

std::span<const PublishedPoint> published_points();

}  // namespace trn::forecast
