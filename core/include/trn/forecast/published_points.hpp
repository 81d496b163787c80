#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace trn::forecast {

// What a published point is used for: calibrating a term of the model, or checking its
// prediction (never both).
enum class PointRole {
  kMicroStep,     // a table's one-node BERT phase-1 AdamW point: that release's micro-step
  kAttentionFit,  // the one-node BERT phase-2 point the attention scores' traffic is fitted to
  kNetworkFit,    // the 16-node points the two per-node overhead terms are fitted to
  kFamilyFit,     // the point a model family's MFU is fitted to (Llama)
  kValidation,    // not fitted: the prediction's error is reported with every sweep
};

// One training throughput Neuron published for trn1.32xlarge (docs/planner.md#published).
struct PublishedPoint {
  std::string_view model;  // a forecast_model name
  // The first Neuron release whose table had it; "+interim": a table version published between
  // that release and the next.
  std::string_view sdk;
  std::int64_t seq_len = 0;
  std::int64_t nodes = 0;
  std::int64_t tensor_parallel = 1;
  std::int64_t pipeline_parallel = 1;
  std::int64_t micro_batch = 0;
  std::int64_t global_batch = 0;
  std::string_view optimizer;  // "adamw", "lamb" or "" (not published: priced as AdamW)
  std::string_view framework;  // "HF" (Hugging Face BERT), "NxD" (neuronx-distributed), "NeMo"
  std::string_view setup;      // framework, precision and scaling as published
  double seq_per_s = 0;
  PointRole role = PointRole::kValidation;
  std::string_view source;
};

std::span<const PublishedPoint> published_points();

// Neuron release order: "2.16.1" < "2.16.1+interim" < "2.17.0".
bool earlier_release(std::string_view a, std::string_view b);

// Whether the point has a shape a bundled profile ships (launcher/profiles): BERT-Large phase 1
// (seq 128, micro-batch 16) or phase 2 (seq 512, micro-batch 2), or Llama 2 7B at tensor
// parallel 8 without pipeline parallelism, trained by the frameworks the forecast is calibrated
// on (not NeMo). The forecast's accuracy goal holds over these.
bool bundled_profile_shape(const PublishedPoint& point);

}  // namespace trn::forecast
