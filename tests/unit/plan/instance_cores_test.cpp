// The NeuronCores a plan assumes for an instance type it was told (not one it inspected).
#include "trn/plan/instance_cores.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan_test_support.hpp"

namespace {

using plan_test::error_of;
using testing::HasSubstr;
using trn::plan::planned_neuron_cores;

TEST(InstanceCores, TrainiumTypesHaveTheirDocumentedLogicalCores) {
  EXPECT_EQ(planned_neuron_cores("trn1.32xlarge", "--instance-type"), 32);
  EXPECT_EQ(planned_neuron_cores("trn1n.32xlarge", "--instance-type"), 32);
  EXPECT_EQ(planned_neuron_cores("trn1.2xlarge", "--instance-type"), 2);
  EXPECT_EQ(planned_neuron_cores("inf2.48xlarge", "--instance-type"), 24);
}

TEST(InstanceCores, Trn2GroupsPhysicalCoresByTheLogicalConfigTwoByDefault) {
  EXPECT_EQ(planned_neuron_cores("trn2.48xlarge", "--instance-type"), 64);
  EXPECT_EQ(planned_neuron_cores("trn2.48xlarge", "--instance-type", 1), 128);
  // The config applies to Trainium2 only.
  EXPECT_EQ(planned_neuron_cores("trn1.32xlarge", "--instance-type", 1), 32);
}

TEST(InstanceCores, OtherInstanceTypesHaveNoNeuronDevices) {
  EXPECT_EQ(planned_neuron_cores("c5.4xlarge", "--instance-type"), 0);
  EXPECT_EQ(planned_neuron_cores("m7i.metal-24xl", "--instance-type"), 0);
}

TEST(InstanceCores, AnUnknownTrainiumSizeIsAnErrorListingTheKnownTypes) {
  const auto message =
      error_of([] { planned_neuron_cores("trn1.23xlarge", "the profile's instance_type"); });
  EXPECT_THAT(message, HasSubstr("instance type 'trn1.23xlarge' (the profile's instance_type)"));
  EXPECT_THAT(message, HasSubstr("trn1.32xlarge, trn1n.32xlarge, trn2.48xlarge"));
}

TEST(InstanceCores, ANameThatIsNoInstanceTypeIsAnError) {
  EXPECT_THAT(error_of([] { planned_neuron_cores("trn1", "--instance-type"); }),
              HasSubstr("'trn1' (--instance-type) is not an EC2 instance type: write "
                        "FAMILY.SIZE, e.g. trn1.32xlarge"));
}

TEST(InstanceCores, EveryBundledTrainiumProfileNamesItsInstanceType) {
  for (const auto* name :
       {"bert_pretrain", "bert_pretrain_lamb", "bert_pretrain_ph2", "llama2_7b", "llama2_7b_nxd"}) {
    const auto profile = plan_test::bundled(name);
    EXPECT_EQ(profile.instance_type, "trn1.32xlarge") << name;
  }
  EXPECT_EQ(plan_test::bundled("bert_tiny").instance_type, "") << "bert_tiny is for CPU nodes";
}

TEST(InstanceCores, BertPretrainOnSixteenAssumedTrn1NodesAccumulatesTwice) {
  const auto profile = plan_test::bundled("bert_pretrain");
  const auto plan = plan_test::plan_on(
      profile, 16, planned_neuron_cores(profile.instance_type, "the profile's instance_type"));
  EXPECT_EQ(plan.workers_per_node, 32);
  EXPECT_EQ(plan.grad_accum, 2);
  EXPECT_EQ(plan.global_batch, 16384);
}

}  // namespace
