#include "trn/run/heartbeat.hpp"

#include <gtest/gtest.h>

namespace {

using trn::run::parse_heartbeat;

TEST(Heartbeat, ReadsTheLineTheTrainerWrites) {
  // As trainer/trn_trainer/heartbeat.py writes it: compact JSON padded with spaces.
  const auto beat = parse_heartbeat(
      R"({"rank":3,"node":"trn-st-2","pid":4242,"step":17,"phase":"allreduce","since":1795586772.5,)"
      R"("compute_s":0.25,"window":1,"window_compute_s":0.24,"start_step":12}          )");
  ASSERT_TRUE(beat);
  EXPECT_EQ(beat->rank, 3U);
  EXPECT_EQ(beat->node, "trn-st-2");
  EXPECT_EQ(beat->step, 17);
  EXPECT_EQ(beat->phase, "allreduce");
  EXPECT_DOUBLE_EQ(*beat->compute_s, 0.25);
  EXPECT_EQ(beat->window, 1);
  EXPECT_DOUBLE_EQ(*beat->window_compute_s, 0.24);
  EXPECT_EQ(beat->start_step, 12);
  const auto failed = parse_heartbeat(
      R"({"rank":0,"node":"a","pid":1,"step":0,"phase":"failed","since":1.0,"compute_s":null,)"
      R"("window":0,"window_compute_s":null,"error":"RuntimeError: Connection closed by peer"})");
  ASSERT_TRUE(failed);
  EXPECT_FALSE(failed->compute_s);
  EXPECT_EQ(failed->error, "RuntimeError: Connection closed by peer");
}

TEST(Heartbeat, AHalfWrittenOrForeignLineIsNoHeartbeat) {
  EXPECT_FALSE(parse_heartbeat(R"({"rank":3,"node":"n","step":1)"));
  EXPECT_FALSE(parse_heartbeat(""));
  EXPECT_FALSE(parse_heartbeat("[1, 2]"));
  EXPECT_FALSE(parse_heartbeat(R"({"rank":-1,"step":1,"phase":"done","since":1})"));
  EXPECT_FALSE(parse_heartbeat(R"({"rank":1,"step":"x","phase":"done","since":1})"));
}

}  // namespace
