#include "trn/health/check_result.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trn/common/error.hpp"

namespace trn::health {
namespace {

TEST(CheckResult, DrainReasonHasTheFixedPrefixAndIsSafeForScontrol) {
  const CheckResult failure{"efa", CheckStatus::kFailed, "7 of 8 \"EFA\" devices\nmissing", 0};
  EXPECT_EQ(drain_reason(failure), "trn-health: efa: 7 of 8  EFA  devices missing");
  const CheckResult long_one{"kernel-log", CheckStatus::kFailed, std::string(500, 'x'), 0};
  const auto reason = drain_reason(long_one);
  EXPECT_EQ(reason.size(), kMaxReasonBytes);
  EXPECT_EQ(reason.rfind("trn-health: kernel-log: xxx", 0), 0u);
  EXPECT_EQ(reason.substr(reason.size() - 3), "...");
}

TEST(CheckResult, WarningsAndSkipsAreHealthyFailuresAreNot) {
  NodeHealth health{
      "n1",
      {{"a", CheckStatus::kWarning, "could not run", 0}, {"b", CheckStatus::kSkipped, "", 0}},
      {}};
  EXPECT_TRUE(health.healthy());
  health.checks.push_back({"c", CheckStatus::kFailed, "bad", 0});
  health.checks.push_back({"d", CheckStatus::kFailed, "worse", 0});
  ASSERT_FALSE(health.healthy());
  EXPECT_EQ(health.first_failure()->check, "c");
}

TEST(CheckResult, JsonRoundTrip) {
  const NodeHealth health{"n3", {{"reach", CheckStatus::kFailed, "cannot reach n1", 1.5}}, {"n1"}};
  const auto json = to_json(health);
  EXPECT_FALSE(json.at("healthy").get<bool>());
  const auto back = node_health_from_json(json);
  EXPECT_EQ(back.node, "n3");
  ASSERT_EQ(back.checks.size(), 1u);
  EXPECT_EQ(back.checks[0].status, CheckStatus::kFailed);
  EXPECT_EQ(back.checks[0].evidence, "cannot reach n1");
  EXPECT_EQ(back.unreached, std::vector<std::string>{"n1"});
  EXPECT_THROW(
      node_health_from_json(
          {{"node", "n"},
           {"checks", {{{"check", "x"}, {"status", "meh"}, {"evidence", ""}, {"seconds", 0}}}}}),
      Error);
}

// A garbage sysfs value quoted in the evidence (found by tests/fuzz: trn-health --json threw on
// it): the report still prints, the bad bytes replaced.
TEST(CheckResult, JsonOfEvidenceThatIsNotUtf8) {
  const NodeHealth health{"n\xff", {{"neuron-devices", CheckStatus::kWarning, "0-0\xff+", 0}}, {}};
  const auto text = to_json(health).dump();
  const auto back = node_health_from_json(nlohmann::json::parse(text));
  EXPECT_EQ(back.node, "n\xEF\xBF\xBD");
  EXPECT_EQ(back.checks.at(0).evidence, "0-0\xEF\xBF\xBD+");
}

}  // namespace
}  // namespace trn::health
