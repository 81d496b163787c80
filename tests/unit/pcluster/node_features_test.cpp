// Reading a partition's instance type from the Slurm features ParallelCluster gives its nodes.
#include "trn/pcluster/node_features.hpp"

#include <gtest/gtest.h>

namespace {

using trn::pcluster::instance_type_in_features;
using trn::pcluster::is_instance_type_name;
using trn::pcluster::partition_instance_types;

TEST(NodeFeatures, InstanceTypeNames) {
  EXPECT_TRUE(is_instance_type_name("trn1.32xlarge"));
  EXPECT_TRUE(is_instance_type_name("trn2.48xlarge"));
  EXPECT_TRUE(is_instance_type_name("c5.large"));
  EXPECT_TRUE(is_instance_type_name("m7i.metal-24xl"));
  EXPECT_FALSE(is_instance_type_name("trn1"));
  EXPECT_FALSE(is_instance_type_name("cuda6.5"));
  EXPECT_FALSE(is_instance_type_name("Trn1.32xlarge"));
  EXPECT_FALSE(is_instance_type_name(""));
}

TEST(NodeFeatures, ParallelClusterListsTheInstanceTypeAfterStaticOrDynamic) {
  EXPECT_EQ(instance_type_in_features("static,trn1.32xlarge,compute1"), "trn1.32xlarge");
  EXPECT_EQ(instance_type_in_features("dynamic,trn2.48xlarge,trn2-nodes,efa"), "trn2.48xlarge");
  EXPECT_EQ(instance_type_in_features("(null)"), std::nullopt);
  EXPECT_EQ(instance_type_in_features("HyperThread,cuda6.5"), std::nullopt);
}

const char* const kSinfo =
    "cpu c5.4xlarge\n"  // not a ParallelCluster feature list: no static/dynamic, still a type
    "trn* static,trn1.32xlarge,compute1,efa\n"
    "trn* dynamic,trn1.32xlarge,compute1,efa\n"
    "mixed static,trn1.32xlarge,a\n"
    "mixed dynamic,trn2.48xlarge,b\n"
    "plain (null)\n";

TEST(NodeFeatures, TheDefaultPartitionIsTheOneMarkedWithAStar) {
  EXPECT_EQ(partition_instance_types(kSinfo, std::nullopt), std::set<std::string>{"trn1.32xlarge"});
}

TEST(NodeFeatures, ANamedPartitionListsTheTypesOfAllItsNodes) {
  EXPECT_EQ(partition_instance_types(kSinfo, "mixed"),
            (std::set<std::string>{"trn1.32xlarge", "trn2.48xlarge"}));
  EXPECT_EQ(partition_instance_types(kSinfo, "cpu"), std::set<std::string>{"c5.4xlarge"});
  EXPECT_TRUE(partition_instance_types(kSinfo, "plain").empty());
  EXPECT_TRUE(partition_instance_types(kSinfo, "absent").empty());
  EXPECT_TRUE(partition_instance_types("", std::nullopt).empty());
}

}  // namespace
