#include "trn/forecast/published_calibration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "trn/common/error.hpp"
#include "trn/forecast/node_hardware.hpp"

namespace trn::forecast {
namespace {

const ValidationRow* row_for(std::string_view model, std::string_view sdk, std::int64_t nodes) {
  static const auto rows = validate_published();
  for (const auto& row : rows) {
    if (row.point->model == model && row.point->sdk == sdk && row.point->nodes == nodes)
      return &row;
  }
  return nullptr;
}

// The goal: BERT-Large 1 -> 16 nodes within 5% wherever the model was not fitted.
TEST(PublishedCalibration, BertLargeSixteenNodePointsOfOtherReleasesWithinFivePercent) {
  for (const char* sdk : {"2.26", "2.27", "2.28"}) {
    const ValidationRow* row = row_for("bert-large", sdk, 16);
    ASSERT_NE(row, nullptr) << sdk;
    EXPECT_LT(std::abs(row->error), 0.05)
        << "Neuron " << sdk << ": predicted " << row->predicted_seq_per_s << " seq/s";
  }
}

TEST(PublishedCalibration, Llama2ThirteenBAtThirtyTwoNodesWithinTenPercent) {
  const ValidationRow* row = row_for("llama2-13b", "2.16", 32);
  ASSERT_NE(row, nullptr);
  EXPECT_LT(std::abs(row->error), 0.10) << row->predicted_seq_per_s;
}

// Outside the goal, reported with every sweep (docs/planner.md#validation): LAMB at one node
// with 4x the batch (+7%), and Llama 2 70B whose tensor parallel 32 spans the whole node (+10%).
TEST(PublishedCalibration, EveryUnfittedPointIsValidatedAndNoFittedOneIs) {
  std::size_t validation_points = 0;
  for (const auto& point : published_points()) {
    if (point.role == PointRole::kValidation) ++validation_points;
  }
  const auto rows = validate_published();
  EXPECT_EQ(rows.size(), validation_points);
  for (const auto& row : rows) {
    EXPECT_EQ(row.point->role, PointRole::kValidation);
    EXPECT_GT(row.predicted_seq_per_s, 0);
    EXPECT_DOUBLE_EQ(row.error, row.predicted_seq_per_s / row.point->seq_per_s - 1);
    EXPECT_LT(std::abs(row.error), 0.25) << row.point->model << " " << row.point->sdk;
  }
}

// The fitted points are met exactly: that is what fitting means here.
TEST(PublishedCalibration, TheModelMeetsThePointsItWasFittedTo) {
  const NodeHardware trn1 = *node_hardware("trn1.32xlarge");
  const Calibration bert = published_calibration("bert");
  const Calibration llama = published_calibration("llama");
  for (const auto& point : published_points()) {
    if (point.role == PointRole::kValidation) continue;
    if (point.role == PointRole::kMicroStep && point.sdk != "2.28") continue;  // other releases
    Calibration c = point.model == "bert-large" ? bert : llama;
    if (point.role == PointRole::kNetworkFit) {
      // fitted with Neuron 2.13's own micro-step
      Calibration at_213 = c;
      const auto& one_node = *std::find_if(
          published_points().begin(), published_points().end(), [](const PublishedPoint& p) {
            return p.sdk == "2.13" && p.role == PointRole::kMicroStep;
          });
      at_213.mfu = 1;
      const auto f = forecast_step(published_shape(one_node), trn1, at_213);
      at_213.mfu = f.compute_s / (static_cast<double>(one_node.global_batch) / one_node.seq_per_s -
                                  (f.step_s - f.compute_s));
      c = at_213;
    }
    const double predicted = forecast_step(published_shape(point), trn1, c).seq_per_s;
    EXPECT_NEAR(predicted / point.seq_per_s, 1.0, 1e-9) << point.model << " " << point.sdk;
  }
}

TEST(PublishedCalibration, MfuAndPerNodeTermsArePlausible) {
  const Calibration bert = published_calibration("bert");
  EXPECT_NEAR(bert.mfu, 0.30, 0.03);  // 3,826.6 seq/s x 236.8 GFLOP / 3,040 TFLOP/s
  EXPECT_GT(bert.per_node_slowdown, 0);
  EXPECT_GT(bert.per_node_step_s, 0);
  EXPECT_THROW(published_calibration("gpt"), Error);
  const std::string text = published_calibration_text("llama");
  EXPECT_NE(text.find("Llama 2 7B"), std::string::npos) << text;
}

}  // namespace
}  // namespace trn::forecast
