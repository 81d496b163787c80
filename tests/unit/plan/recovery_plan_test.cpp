// The plan's recovery settings (docs/recovery.md): spares, the watchdog's hang timeout and
// straggler window, and whether stragglers are replaced; read from the profile, range-checked,
// shown in the plan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan_test_support.hpp"
#include "trn/plan/plan_report.hpp"
#include "trn/plan/profile_keys.hpp"

namespace {

using plan_test::bundled;
using plan_test::error_of;
using testing::HasSubstr;
using testing::Not;
using testing::StartsWith;
using namespace trn::plan;

TEST(RecoveryPlan, DefaultsKeepNoSpareAndAThreeMinuteHangFloor) {
  const auto plan = make_plan(bundled("bert_tiny"), plan_test::on(2, 0));
  EXPECT_EQ(plan.spares_wanted, 0);
  EXPECT_EQ(plan.hang_timeout_s, 180);
  EXPECT_EQ(plan.straggler_window, 10);
  EXPECT_FALSE(plan.replace_stragglers);
  const auto json = to_json(plan);
  EXPECT_TRUE(json.at("spare_nodes").empty());
  EXPECT_EQ(json.at("watchdog").at("hang_timeout_s"), 180);
  EXPECT_THAT(render_plan_text(plan), Not(HasSubstr("kept to replace")));
}

TEST(RecoveryPlan, ProfileKeysReachThePlanAndItsReport) {
  auto profile = bundled("bert_tiny");
  apply_set_option(profile, "spare_nodes=2");
  apply_set_option(profile, "hang_timeout=30");
  apply_set_option(profile, "straggler_window=5");
  apply_set_option(profile, "replace_stragglers=true");
  auto plan = make_plan(profile, plan_test::on(2, 0));
  plan.spare_nodes = {"n3", "n4"};  // trn-run names them from the job's nodes
  EXPECT_EQ(plan.spares_wanted, 2);
  const auto json = to_json(plan);
  EXPECT_EQ(json.at("spare_nodes"), nlohmann::json({"n3", "n4"}));
  EXPECT_EQ(json.at("watchdog").at("straggler_window"), 5);
  EXPECT_EQ(json.at("watchdog").at("replace_stragglers"), true);
  const auto text = render_plan_text(plan);
  EXPECT_THAT(text, HasSubstr("2 node(s) kept to replace a lost one in the job: n3, n4"));
  EXPECT_THAT(text, HasSubstr("hung after 30 s (or 5 median steps)"));
  EXPECT_THAT(text, HasSubstr("5-step windows, replaced by a spare"));
}

TEST(RecoveryPlan, BadValuesNameTheKeyAndWhatItTakes) {
  auto profile = bundled("bert_tiny");
  EXPECT_THAT(error_of([&] { apply_set_option(profile, "spare_nodes=-1"); }),
              StartsWith("--set spare_nodes=-1: "));
  EXPECT_THAT(error_of([&] { apply_set_option(profile, "hang_timeout=0"); }),
              HasSubstr("hang_timeout must be a whole number >= 1"));
  EXPECT_THAT(error_of([&] { apply_set_option(profile, "replace_stragglers=yes"); }),
              HasSubstr("replace_stragglers must be true or false"));
  EXPECT_EQ(profile.spare_nodes, 0);  // as it was
}

}  // namespace
