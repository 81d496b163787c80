#include "trn/run/spare_swap.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using trn::run::select_training_nodes;
using trn::run::swap_in_spares;
using Names = std::vector<std::string>;

const Names kJob = {"n1", "n2", "n3", "n4", "n5"};

TEST(SpareSwap, ALostNodeIsReplacedAndTheWorldKeepsItsSizeInTheJobsOrder) {
  const auto swap = swap_in_spares(kJob, {"n1", "n2", "n3"}, {"n4", "n5"}, {"n2"});
  ASSERT_TRUE(swap);
  EXPECT_EQ(swap->nodes, (Names{"n1", "n3", "n4"}));
  EXPECT_EQ(swap->spares, Names{"n5"});
  ASSERT_EQ(swap->replaced.size(), 1U);
  EXPECT_EQ(swap->replaced[0], (std::pair<std::string, std::string>{"n2", "n4"}));
}

TEST(SpareSwap, ALostSpareIsDroppedAndTwoLostNodesTakeTwoSpares) {
  auto swap = swap_in_spares(kJob, {"n1", "n2", "n3"}, {"n4", "n5"}, {"n5"});
  ASSERT_TRUE(swap);
  EXPECT_EQ(swap->nodes, (Names{"n1", "n2", "n3"}));
  EXPECT_EQ(swap->spares, Names{"n4"});
  EXPECT_TRUE(swap->replaced.empty());
  swap = swap_in_spares(kJob, {"n1", "n2", "n3"}, {"n4", "n5"}, {"n3", "n1"});
  ASSERT_TRUE(swap);
  EXPECT_EQ(swap->nodes, (Names{"n2", "n4", "n5"}));
  EXPECT_TRUE(swap->spares.empty());
}

TEST(SpareSwap, FewerSparesThanLostNodesIsNoSwap) {
  EXPECT_FALSE(swap_in_spares(kJob, {"n1", "n2", "n3"}, {"n4"}, {"n1", "n2"}));
  EXPECT_FALSE(swap_in_spares(kJob, {"n1", "n2"}, {}, {"n1"}));
  EXPECT_FALSE(swap_in_spares(kJob, {"n1", "n2", "n3"}, {"n4"}, {"n1", "n4"}));  // lost spare too
}

TEST(SpareSwap, TheFirstHealthyNodesTrainAndTheNextOnesWait) {
  auto selection = select_training_nodes(kJob, {}, 2);
  EXPECT_EQ(selection.nodes, (Names{"n1", "n2", "n3"}));
  EXPECT_EQ(selection.spares, (Names{"n4", "n5"}));
  selection = select_training_nodes(kJob, {"n2"}, 2);  // a sick node: a spare takes its place
  EXPECT_EQ(selection.nodes, (Names{"n1", "n3", "n4"}));
  EXPECT_EQ(selection.spares, Names{"n5"});
  selection = select_training_nodes(kJob, {"n1", "n2", "n3"}, 2);  // too few: all healthy train
  EXPECT_EQ(selection.nodes, (Names{"n4", "n5"}));
  EXPECT_TRUE(selection.spares.empty());
  selection = select_training_nodes(kJob, {}, 0);
  EXPECT_EQ(selection.nodes, kJob);
  EXPECT_TRUE(selection.spares.empty());
}

}  // namespace
