#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trn/forecast/model_shape.hpp"
#include "trn/forecast/published_points.hpp"
#include "trn/forecast/step_model.hpp"

namespace trn::forecast {

// The model calibrated to Neuron's published trn1 results (docs/planner.md#calibration):
// the two per-node terms fitted once to Neuron 2.13's BERT-Large 16-node points, the BERT
// family's MFU from the newest release's one-node point, the Llama family's from the Llama 2
// 7B 16-node point. Throws trn::Error for a family without published points.
Calibration published_calibration(std::string_view family);

// In words, for the sweep's header: which points fixed which term.
std::string published_calibration_text(std::string_view family);

// The step shape of a published point on trn1.32xlarge.
StepShape published_shape(const PublishedPoint& point);

// The prediction for each published point the model was not fitted to (BERT points take their
// release's one-node micro-step, as a user of that release would), and its error.
struct ValidationRow {
  const PublishedPoint* point = nullptr;
  double predicted_seq_per_s = 0;
  double error = 0;  // predicted / published - 1
};
std::vector<ValidationRow> validate_published();

}  // namespace trn::forecast
