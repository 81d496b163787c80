#include "trn/forecast/run_measurement.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "trn/common/error.hpp"
#include "trn/forecast/model_shape.hpp"

namespace trn::forecast {
namespace {

using ::testing::HasSubstr;

// results.json as trn-run leaves it: the trainer's results and the plan beside them.
nlohmann::json results(std::int64_t nodes, double step_s, double micro_s, double allreduce_s,
                       double optimizer_s) {
  return {
      {"results",
       {{"parameters",
         {{"micro_batch", 8},
          {"accumulation", 8 / nodes},
          {"global_batch", 64},
          {"flops_per_sequence", 1.0e9},
          {"parameter_count", 4.4e6}}},
        {"step_time_median_s", step_s},
        {"phase_medians",
         {{"micro_step_s", micro_s}, {"allreduce_s", allreduce_s}, {"optimizer_s", optimizer_s}}}}},
      {"plan",
       {{"nodes", nodes},
        {"workers_per_node", 1},
        {"tensor_parallel", 1},
        {"pipeline_parallel", 1},
        {"data_parallel", nodes},
        {"instance_type", nullptr},
        {"forecast_model", "bert-tiny"},
        {"seq_len", 128}}}};
}

std::filesystem::path write(const test::TempDir& dir, const nlohmann::json& doc) {
  std::ofstream(dir.path() / "results.json") << doc.dump();
  return dir.path();
}

NodeHardware cpu_nodes() {
  NodeHardware hw;
  hw.instance_type = "CPU";
  hw.workers = 1;
  hw.inter_node_bytes_per_s = 1.25e9;
  return hw;
}

TEST(RunMeasurement, OneNodeRunReproducesItsOwnStep) {
  test::TempDir dir;
  const auto run = read_run_measurement(write(dir, results(1, 1.0, 0.1, 0, 0.05)));
  EXPECT_EQ(run.shape.nodes, 1);
  EXPECT_EQ(run.shape.grad_accum, 8);
  // the plan names the model: the forecast's own formulas size it
  EXPECT_DOUBLE_EQ(run.shape.flops_per_sequence,
                   training_flops_per_sequence(*find_model_shape("bert-tiny"), 128));
  NodeHardware hw = cpu_nodes();
  const Calibration c = calibration_from_run(run, hw);
  EXPECT_NEAR(c.fixed_step_s, 1.0 - 8 * 0.1 - 0.05, 1e-12);  // data and logging
  EXPECT_NEAR(forecast_step(run.shape, hw, c).step_s, 1.0, 1e-12);
  // two nodes: half the micro-steps plus an all-reduce at the assumed bandwidth
  StepShape two = run.shape;
  two.nodes = 2;
  two.data_parallel = 2;
  two.grad_accum = 4;
  const StepForecast f = forecast_step(two, hw, c);
  EXPECT_NEAR(f.compute_s, 0.4, 1e-12);
  EXPECT_GT(f.allreduce_s, 0);
}

TEST(RunMeasurement, MultiNodeRunFitsBandwidthAndPerNodeTerm) {
  test::TempDir dir;
  const auto run = read_run_measurement(write(dir, results(2, 1.0, 0.1, 0.2, 0.05)));
  NodeHardware hw = cpu_nodes();
  const Calibration c = calibration_from_run(run, hw);
  const StepForecast f = forecast_step(run.shape, hw, c);
  EXPECT_NEAR(f.allreduce_s, 0.2, 1e-12);  // the measured all-reduce, reproduced
  EXPECT_NEAR(c.step_s_per_doubling, 1.0 - 0.4 - 0.2 - 0.05, 1e-12);  // 2 nodes: one doubling
  EXPECT_NEAR(f.step_s, 1.0, 1e-12);
}

TEST(RunMeasurement, MissingOrWrongEntriesNameTheFileAndTheEntry) {
  test::TempDir dir;
  auto doc = results(1, 1.0, 0.1, 0, 0.05);
  doc["results"].erase("phase_medians");
  EXPECT_THAT(
      [&] {
        try {
          read_run_measurement(write(dir, doc));
        } catch (const Error& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      HasSubstr("results.json: no results.phase_medians: calibrate from the run directory"));
  doc = results(1, 0, 0.1, 0, 0.05);
  EXPECT_THROW(read_run_measurement(write(dir, doc)), Error);  // a step of 0 s
  doc = results(1, 1.0, 0.1, 0, 0.05);
  doc["plan"]["nodes"] = -2;
  EXPECT_THROW(read_run_measurement(write(dir, doc)), Error);
  std::ofstream(dir.path() / "results.json") << "{ not json";
  EXPECT_THROW(read_run_measurement(dir.path()), Error);
  EXPECT_THROW(read_run_measurement(dir.path() / "absent"), Error);
}

}  // namespace
}  // namespace trn::forecast
