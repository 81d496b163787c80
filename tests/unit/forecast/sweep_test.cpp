#include "trn/forecast/sweep.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "trn/common/error.hpp"
#include "trn/forecast/node_hardware.hpp"
#include "trn/forecast/published_calibration.hpp"
#include "trn/forecast/sweep_report.hpp"
#include "trn/plan/load_profile.hpp"

namespace trn::forecast {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

plan::Profile bundled(const std::string& name) {
  return plan::load_profile_file(std::filesystem::path(TRN_SOURCE_DIR) / "launcher" / "profiles" /
                                 (name + ".yaml"));
}

plan::PlanRequest trn1_request() {
  plan::PlanRequest request;
  request.cluster.nodes = 1;
  request.cluster.neuron_cores_per_node = 32;
  request.cluster.instance_type = "trn1.32xlarge";
  request.run_dir = "/nonexistent/run";
  return request;
}

ForecastSetup published_setup(const plan::Plan& plan) {
  std::string why_not;
  auto setup = forecast_setup(plan, std::nullopt, {}, why_not);
  EXPECT_TRUE(setup) << why_not;
  return *setup;
}

std::string error_of(std::string_view text) {
  try {
    parse_node_counts(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(NodeCounts, ListsAndRangesAscendWithoutRepeats) {
  EXPECT_THAT(parse_node_counts("1,2,4,8,16"), ElementsAre(1, 2, 4, 8, 16));
  EXPECT_THAT(parse_node_counts("16,1-3,2"), ElementsAre(1, 2, 3, 16));
  EXPECT_EQ(parse_node_counts("1-64").size(), 64u);
  EXPECT_THAT(parse_node_counts("65536"), ElementsAre(65536));
}

TEST(NodeCounts, BadTextNamesTheOptionAndTheWord) {
  EXPECT_THAT(error_of(""), HasSubstr("--sweep '': no node counts"));
  EXPECT_THAT(error_of("1,,2"), HasSubstr("'' is not a whole number"));
  EXPECT_THAT(error_of("0-4"), HasSubstr("0 is out of range 1-65536"));
  EXPECT_THAT(error_of("8-4"), HasSubstr("the range 8-4 runs backwards"));
  EXPECT_THAT(error_of("1-65536"), HasSubstr("more than 4096 node counts"));
  EXPECT_THAT(error_of("two"), HasSubstr("give node counts and ranges such as 1,2,4,8,16 or 1-64"));
  EXPECT_THAT(error_of("-3"), HasSubstr("is not a whole number"));
}

TEST(Sweep, InfeasibleCountsSayWhyAndFeasibleOnesAreForecast) {
  const auto profile = bundled("bert_pretrain");
  const auto request = trn1_request();
  const auto plan = plan::make_plan(profile, request);
  const auto rows = sweep(profile, request, parse_node_counts("1-4,64"), published_setup(plan));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].infeasible, "");
  EXPECT_EQ(rows[0].grad_accum, 32);
  EXPECT_DOUBLE_EQ(rows[0].efficiency, 1.0);
  EXPECT_THAT(rows[2].infeasible, HasSubstr("data-parallel degree 96 (3 nodes x 32 workers)"));
  EXPECT_THAT(rows[2].infeasible, ::testing::Not(HasSubstr("node counts that work")));
  EXPECT_EQ(rows[3].grad_accum, 8);
  EXPECT_LT(rows[3].efficiency, rows[1].efficiency);  // strong scaling: less work per all-reduce
  EXPECT_GT(rows[3].step.seq_per_s, rows[1].step.seq_per_s);
  EXPECT_THAT(rows[4].infeasible, HasSubstr("32768 sequences"));
  // time and money follow from the step: steps x step seconds x nodes x price
  EXPECT_NEAR(rows[1].train_s, 28125 * rows[1].step.step_s, 1e-6);
  EXPECT_NEAR(rows[1].cost_on_demand, rows[1].train_s / 3600 * 2 * 21.50, 1e-6);
}

TEST(Sweep, TensorParallelMustDivideTheWorkers) {
  auto profile = bundled("llama2_7b_nxd");
  profile.tensor_parallel = 8;  // one group per 8 NeuronCores of a node, 8 pipeline stages
  profile.pipeline_parallel = 8;
  auto request = trn1_request();
  request.cluster.nodes = 2;
  const auto plan = plan::make_plan(profile, request);
  const auto rows = sweep(profile, request, {1, 2}, published_setup(plan));
  EXPECT_THAT(rows[0].infeasible, HasSubstr("tensor_parallel"));
  EXPECT_EQ(rows[1].infeasible, "");
}

TEST(Sweep, ASixtyFourCountSweepReportsEveryRowInEveryFormat) {
  const auto profile = bundled("bert_pretrain_lamb");
  const auto request = trn1_request();
  const auto plan = plan::make_plan(profile, request);
  const auto setup = published_setup(plan);
  const auto rows = sweep(profile, request, parse_node_counts("1-64"), setup);
  const auto text = render_sweep_text(plan, setup, rows);
  EXPECT_THAT(text, HasSubstr("calibrated from Neuron's published trn1 results"));
  EXPECT_THAT(text, HasSubstr("published trn1 points the model was not fitted to"));
  EXPECT_THAT(text, HasSubstr("the bundled profiles' shapes"));
  EXPECT_THAT(text, HasSubstr("eff: seq/s per node relative to the 1-node row"));
  EXPECT_THAT(text, HasSubstr("$21.50 on demand"));
  const auto doc = sweep_json(plan, setup, rows);
  EXPECT_EQ(doc["rows"].size(), 64u);
  EXPECT_EQ(doc["validation"].size(), validate_published().size());
  EXPECT_EQ(doc["validation_summary"]["all"]["points"], validate_published().size());
  const auto csv = render_sweep_csv(rows);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 65);
}

// Past the largest published point (32 nodes) a row says it is an extrapolation, in every
// format; within it, none does.
TEST(Sweep, RowsBeyondTheTrustedRangeSaySo) {
  const auto profile = bundled("llama2_7b");
  const auto request = trn1_request();
  const auto plan = plan::make_plan(profile, request);
  const auto setup = published_setup(plan);
  EXPECT_EQ(setup.trusted_nodes, 32);
  const auto rows = sweep(profile, request, {16, 32, 64}, setup);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_FALSE(rows[0].extrapolated);
  EXPECT_FALSE(rows[1].extrapolated);
  EXPECT_TRUE(rows[2].extrapolated);
  const auto text = render_sweep_text(plan, setup, rows);
  std::istringstream lines(text);
  std::string line;
  std::size_t marked = 0;
  while (std::getline(lines, line)) {
    if (line.ends_with("extrapolated")) {
      ++marked;
      EXPECT_EQ(line.rfind("    64 ", 0), 0u) << line;
    }
  }
  EXPECT_EQ(marked, 1u) << text;
  EXPECT_EQ(sweep_json(plan, setup, rows)["rows"][2]["extrapolated"], true);
  EXPECT_THAT(render_sweep_csv(rows), HasSubstr(",true,\n"));
}

// Strong scaling of every bundled trn1 profile: throughput never falls as nodes are added
// (the per-node terms grow with log2 N; with linear terms llama2_7b fell from 206 seq/s at 64
// nodes to 150 at 256).
TEST(Sweep, BundledProfilesNeverLoseThroughputWithMoreNodes) {
  for (const char* name :
       {"bert_pretrain", "bert_pretrain_lamb", "bert_pretrain_ph2", "llama2_7b", "llama2_7b_nxd"}) {
    const auto profile = bundled(name);
    const auto request = trn1_request();
    const auto plan = plan::make_plan(profile, request);
    const auto rows = sweep(profile, request, parse_node_counts("1-256"), published_setup(plan));
    double previous = 0;
    std::size_t feasible = 0;
    for (const auto& row : rows) {
      if (!row.infeasible.empty()) continue;
      ++feasible;
      EXPECT_GE(row.step.seq_per_s, previous) << name << " at " << row.nodes << " nodes";
      previous = row.step.seq_per_s;
    }
    EXPECT_GE(feasible, 5u) << name;  // the counts whose workers divide the batch
  }
}

TEST(ForecastSetup, NothingToForecastSaysWhy) {
  auto profile = bundled("bert_pretrain");
  auto request = trn1_request();
  std::string why_not;
  profile.forecast_model.clear();
  EXPECT_FALSE(forecast_setup(plan::make_plan(profile, request), std::nullopt, {}, why_not));
  EXPECT_THAT(why_not, HasSubstr("sets no forecast_model"));
  profile = bundled("bert_tiny");
  request.cluster.neuron_cores_per_node = 0;
  request.cluster.instance_type.clear();
  EXPECT_FALSE(forecast_setup(plan::make_plan(profile, request), std::nullopt, {}, why_not));
  EXPECT_THAT(why_not, HasSubstr("CPU nodes have no published calibration: pass --calibrate"));
}

TEST(ForecastSetup, Trn2AndTrn3NeedAMeasuredRunNeverTrn1sPublishedResults) {
  // No Trainium2 or Trainium3 training throughput is published with the shape a forecast needs:
  // their plans ask for --calibrate instead of borrowing trn1's results or figures.
  auto profile = bundled("llama2_7b");
  profile.tensor_parallel = 16;  // a degree neuronx-distributed orders on a trn2 node at LNC 2
  for (const auto& [type, cores] : {std::pair{"trn2.48xlarge", 64},
                                    {"trn2u.48xlarge", 64},
                                    {"trn3.48xlarge", 64},
                                    {"trn3p.48xlarge", 64},
                                    {"trn3e.24xlarge", 16}}) {
    auto request = trn1_request();
    request.cluster.instance_type = type;
    request.cluster.neuron_cores_per_node = cores;
    std::string why_not;
    EXPECT_FALSE(forecast_setup(plan::make_plan(profile, request), std::nullopt, {}, why_not))
        << type;
    EXPECT_EQ(why_not, std::string(type) +
                           " nodes have no published calibration: pass --calibrate RUN_DIR (a "
                           "finished run on these nodes)");
    // A measured run is calibrated on these nodes' own figures, never trn1's.
    EXPECT_FALSE(node_hardware(type)) << type;
  }
}

TEST(ForecastSetup, PricesCanBeGiven) {
  const auto plan = plan::make_plan(bundled("bert_pretrain"), trn1_request());
  std::string why_not;
  const auto setup = forecast_setup(plan, std::nullopt, {10.0, 5.0}, why_not);
  ASSERT_TRUE(setup);
  EXPECT_EQ(setup->hardware.price_on_demand, 10.0);
  EXPECT_EQ(setup->hardware.price_reserved, 5.0);
  EXPECT_THAT(forecast_line(plan, *setup), HasSubstr("3,826.6 seq/s"));  // the fitted point
}

TEST(DurationText, DaysHoursMinutesSeconds) {
  EXPECT_EQ(duration_text(42), "0:00:42");
  EXPECT_EQ(duration_text(7500), "2:05:00");
  EXPECT_EQ(duration_text(120420), "1d 9:27:00");
}

}  // namespace
}  // namespace trn::forecast
