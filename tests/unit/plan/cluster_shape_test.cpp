// The allocation's shape from its nodes: all nodes must show the same workers.
#include "trn/plan/cluster_shape.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan_test_support.hpp"

namespace {

using plan_test::error_of;
using testing::HasSubstr;
using namespace trn::plan;

TEST(ClusterShapeOf, IdenticalNodes) {
  const auto shape = cluster_shape_of({{"trn-1", 32}, {"trn-2", 32}}, 99);
  EXPECT_EQ(shape.nodes, 2);
  EXPECT_EQ(shape.node_names, (std::vector<std::string>{"trn-1", "trn-2"}));
  EXPECT_EQ(shape.neuron_cores_per_node, 32);
  EXPECT_EQ(shape.job_id, 99u);
  EXPECT_EQ(cluster_shape_of({{"cpu-1", 0}}).neuron_cores_per_node, 0);
}

TEST(ClusterShapeOf, NamesTheOddNodes) {
  const std::string message = error_of([] {
    cluster_shape_of({{"trn-1", 32}, {"trn-2", 32}, {"trn-3", 0}, {"trn-4", 32}, {"trn-5", 2}});
  });
  EXPECT_THAT(message, HasSubstr("3 of 5 show 32 NeuronCores, but trn-3 (no Neuron devices), "
                                 "trn-5 (2 NeuronCores)"));
  EXPECT_THAT(message, HasSubstr("--exclude=trn-3,trn-5"));
}

TEST(ClusterShapeOf, NoNodesIsAnError) {
  EXPECT_THAT(error_of([] { cluster_shape_of({}); }), HasSubstr("give --nodes N"));
}

}  // namespace
