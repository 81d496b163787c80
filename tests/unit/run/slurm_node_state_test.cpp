#include "trn/run/slurm_node_state.hpp"

#include <gtest/gtest.h>

namespace {

using trn::run::unreachable_by_slurm;

TEST(SlurmNodeState, DownFailedAndNotRespondingNodesAreUnreachable) {
  const auto nodes = unreachable_by_slurm(
      "trn-1 allocated\n"
      "trn-2 allocated*\n"  // slurmd missed slurmctld's pings
      "trn-3 down*\n"
      "trn-4 mixed\n"
      "trn-5 fail\n"
      "trn-6 draining\n"  // drained for a reason, still answering: not lost
      "trn-7 down");
  EXPECT_EQ(nodes, (std::set<std::string>{"trn-2", "trn-3", "trn-5", "trn-7"}));
}

TEST(SlurmNodeState, LinesInAnyOtherShapeAddNothing) {
  EXPECT_TRUE(unreachable_by_slurm("").empty());
  EXPECT_TRUE(unreachable_by_slurm("\n\n").empty());
  EXPECT_TRUE(unreachable_by_slurm("down*").empty());               // no node name
  EXPECT_TRUE(unreachable_by_slurm(" down*\n").empty());            // empty node name
  EXPECT_TRUE(unreachable_by_slurm("trn-1 \n").empty());            // empty state
  EXPECT_TRUE(unreachable_by_slurm("trn-1 down extra\n").empty());  // not sinfo's shape
  EXPECT_TRUE(unreachable_by_slurm("sinfo: error: Unable to contact slurm controller").empty());
}

}  // namespace
