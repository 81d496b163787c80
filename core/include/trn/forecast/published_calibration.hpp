#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "trn/forecast/model_shape.hpp"
#include "trn/forecast/published_points.hpp"
#include "trn/forecast/step_model.hpp"

namespace trn::forecast {

// The model calibrated to Neuron's published trn1 results (docs/planner.md#calibration):
// the attention scores' traffic fitted to Neuron 2.3.0's one-node BERT-Large phase 1 and 2,
// the two per-node terms fitted once to Neuron 2.13.0's BERT-Large 16-node points, the BERT
// family's MFU from the newest release's one-node point, the Llama family's from the Llama 2
// 7B 16-node point. Throws trn::Error for a family without published points.
Calibration published_calibration(std::string_view family);

// In words, for the sweep's header: which points fixed which term.
std::string published_calibration_text(std::string_view family);

// The step shape of a published point on trn1.32xlarge.
StepShape published_shape(const PublishedPoint& point);

// The prediction for each published point the model was not fitted to (BERT points take their
// table's one-node micro-step, or the newest before it, as a user of that release would), and
// its error.
struct ValidationRow {
  const PublishedPoint* point = nullptr;
  double predicted_seq_per_s = 0;
  double error = 0;  // predicted / published - 1
};
std::vector<ValidationRow> validate_published();

// The median and worst absolute error over `rows`, or over those of bundled_profile_shape().
struct ValidationSummary {
  std::size_t points = 0;
  double median_abs_error = 0;
  const ValidationRow* worst = nullptr;  // into `rows`
};
ValidationSummary summarize_validation(const std::vector<ValidationRow>& rows,
                                       bool bundled_shapes_only);

}  // namespace trn::forecast
