#include "trn/forecast/published_calibration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "trn/common/error.hpp"
#include "trn/forecast/node_hardware.hpp"

namespace trn::forecast {
namespace {

const PublishedPoint& point_where(PointRole role, std::string_view sdk,
                                  std::int64_t global_batch = 0) {
  for (const auto& p : published_points()) {
    if (p.role == role && p.sdk == sdk && (global_batch == 0 || p.global_batch == global_batch))
      return p;
  }
  throw Error("no such point");
}

// The MFU at which `calibration` meets `point`, found by bisection (independent of the
// closed forms the calibration uses).
double mfu_meeting(const PublishedPoint& point, Calibration calibration) {
  const NodeHardware trn1 = *node_hardware("trn1.32xlarge");
  double low = 0.01;
  double high = 2;
  for (int i = 0; i < 100; ++i) {
    calibration.mfu = (low + high) / 2;
    const double predicted = forecast_step(published_shape(point), trn1, calibration).seq_per_s;
    (predicted > point.seq_per_s ? high : low) = calibration.mfu;
  }
  return calibration.mfu;
}

double predicted(const PublishedPoint& point, const Calibration& calibration) {
  return forecast_step(published_shape(point), *node_hardware("trn1.32xlarge"), calibration)
      .seq_per_s;
}

// The goal (31, item 4): over the published points of the shapes the bundled profiles
// ship, the median error is under 10% and the worst under 20%.
TEST(PublishedCalibration, BundledProfileShapesMedianUnderTenPercentWorstUnderTwenty) {
  const auto rows = validate_published();
  const ValidationSummary summary = summarize_validation(rows, true);
  ASSERT_GE(summary.points, 60u);
  EXPECT_LT(summary.median_abs_error, 0.10);
  ASSERT_NE(summary.worst, nullptr);
  EXPECT_LT(std::abs(summary.worst->error), 0.20)
      << summary.worst->point->model << " Neuron " << summary.worst->point->sdk << " "
      << summary.worst->point->nodes << " nodes, seq " << summary.worst->point->seq_len;
  // Every shape the profiles ship is among them: phase 1 and 2, both optimizers, Llama 2 7B.
  bool phase2 = false;
  bool lamb = false;
  bool llama = false;
  for (const auto& row : rows) {
    if (!bundled_profile_shape(*row.point)) continue;
    phase2 = phase2 || row.point->seq_len == 512;
    lamb = lamb || row.point->optimizer == "lamb";
    llama = llama || row.point->model == "llama2-7b";
  }
  EXPECT_TRUE(phase2 && lamb && llama);
}

// BERT phase 2 (seq 512, micro-batch 2) was 40-90% too optimistic with phase 1's MFU alone:
// every 16-node phase-2 point of every release is now within 20%.
TEST(PublishedCalibration, BertPhaseTwoFollowsTheAttentionScoresTraffic) {
  std::size_t points = 0;
  for (const auto& row : validate_published()) {
    if (row.point->model != "bert-large" || row.point->seq_len != 512) continue;
    ++points;
    EXPECT_LT(std::abs(row.error), 0.20) << "Neuron " << row.point->sdk << ", " << row.point->nodes
                                         << " nodes: " << row.predicted_seq_per_s << " predicted";
  }
  EXPECT_GE(points, 15u);
}

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
  }
  const ValidationSummary all = summarize_validation(rows, false);
  EXPECT_EQ(all.points, rows.size());
}

// The fitted points are met exactly: that is what fitting means here.
TEST(PublishedCalibration, TheModelMeetsThePointsItWasFittedTo) {
  const Calibration bert = published_calibration("bert");
  const Calibration llama = published_calibration("llama");
  const auto& newest = point_where(PointRole::kMicroStep, "2.28.0");
  EXPECT_NEAR(predicted(newest, bert) / newest.seq_per_s, 1.0, 1e-9);
  const auto& family = point_where(PointRole::kFamilyFit, "2.16.1");
  EXPECT_NEAR(predicted(family, llama) / family.seq_per_s, 1.0, 1e-9);
  // With Neuron 2.13.0's own micro-step: both 16-node points of the network fit.
  Calibration at_213 = bert;
  at_213.mfu = mfu_meeting(point_where(PointRole::kMicroStep, "2.13.0"), bert);
  for (const std::int64_t batch : {1048576, 16384}) {
    const auto& point = point_where(PointRole::kNetworkFit, "2.13.0", batch);
    EXPECT_NEAR(predicted(point, at_213) / point.seq_per_s, 1.0, 1e-6) << batch;
  }
  // With Neuron 2.3.0's: phase 2 at one node, the attention fit.
  Calibration at_23 = bert;
  at_23.mfu = mfu_meeting(point_where(PointRole::kMicroStep, "2.3.0"), bert);
  const auto& phase2 = point_where(PointRole::kAttentionFit, "2.3.0");
  EXPECT_NEAR(predicted(phase2, at_23) / phase2.seq_per_s, 1.0, 1e-6);
}

TEST(PublishedCalibration, FittedTermsArePlausible) {
  const Calibration bert = published_calibration("bert");
  EXPECT_NEAR(bert.mfu, 0.37, 0.03);  // of the matrix work, with the attention traffic apart
  // Scale, mask, softmax and dropout of each score forward and backward, unfused, in bf16:
  // tens of passes of 2 B, not one and not thousands.
  EXPECT_GT(bert.attention_bytes_per_score, 30);
  EXPECT_LT(bert.attention_bytes_per_score, 300);
  EXPECT_GT(bert.slowdown_per_doubling, 0);
  EXPECT_GT(bert.step_s_per_doubling, 0);
  EXPECT_EQ(published_calibration("llama").attention_bytes_per_score, 0);
  EXPECT_THROW(published_calibration("gpt"), Error);
  const std::string text = published_calibration_text("llama");
  EXPECT_NE(text.find("Llama 2 7B"), std::string::npos) << text;
}

TEST(PublishedPoints, ReleasesOrderByNumberThenInterim) {
  EXPECT_TRUE(earlier_release("2.9.1", "2.13.0"));
  EXPECT_TRUE(earlier_release("2.16.1", "2.16.1+interim"));
  EXPECT_TRUE(earlier_release("2.16.1+interim", "2.17.0"));
  EXPECT_FALSE(earlier_release("2.28.0", "2.28.0"));
}

}  // namespace
}  // namespace trn::forecast
