// The NeuronCores a plan assumes for an instance type it was told (not one it inspected).
#include "trn/plan/instance_cores.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan_test_support.hpp"

namespace {

using plan_test::error_of;
using testing::HasSubstr;
using trn::plan::LncRequest;
using trn::plan::planned_neuron_cores;
using trn::plan::requested_lnc;

LncRequest from_environment(const std::string& value) {
  return {value, "NEURON_LOGICAL_NC_CONFIG in the environment"};
}

TEST(InstanceCores, TrainiumTypesHaveTheirDocumentedLogicalCores) {
  EXPECT_EQ(planned_neuron_cores("trn1.32xlarge", "--instance-type"), 32);
  EXPECT_EQ(planned_neuron_cores("trn1n.32xlarge", "--instance-type"), 32);
  EXPECT_EQ(planned_neuron_cores("trn1.2xlarge", "--instance-type"), 2);
  EXPECT_EQ(planned_neuron_cores("inf2.48xlarge", "--instance-type"), 24);
}

TEST(InstanceCores, Trn2GroupsPhysicalCoresByTheLogicalConfigTwoByDefault) {
  EXPECT_EQ(planned_neuron_cores("trn2.48xlarge", "--instance-type"), 64);
  EXPECT_EQ(planned_neuron_cores("trn2.48xlarge", "--instance-type", from_environment("1")), 128);
  EXPECT_EQ(planned_neuron_cores("trn2.48xlarge", "--instance-type", from_environment("2")), 64);
  EXPECT_EQ(planned_neuron_cores("trn2u.48xlarge", "--instance-type"), 64);
  // Trainium1 has no such config: 1 is all it offers.
  EXPECT_EQ(planned_neuron_cores("trn1.32xlarge", "--instance-type", from_environment("1")), 32);
}

TEST(InstanceCores, Trn3TypesHaveEightPhysicalCoresPerDeviceAtLogicalConfigTwoByDefault) {
  EXPECT_EQ(planned_neuron_cores("trn3.48xlarge", "--instance-type"), 64);
  EXPECT_EQ(planned_neuron_cores("trn3.48xlarge", "--instance-type", from_environment("1")), 128);
  EXPECT_EQ(planned_neuron_cores("trn3p.48xlarge", "--instance-type"), 64);
  EXPECT_EQ(planned_neuron_cores("trn3e.24xlarge", "--instance-type"), 16);
  EXPECT_EQ(planned_neuron_cores("trn3e.24xlarge", "--instance-type", from_environment("1")), 32);
  EXPECT_EQ(planned_neuron_cores("trn3pd98.3xlarge", "--instance-type"), 4);
}

TEST(InstanceCores, ALogicalConfigTheTypeDoesNotOfferIsOneErrorNamingInputAndFix) {
  EXPECT_EQ(error_of([] {
              planned_neuron_cores("trn1.32xlarge", "--instance-type", from_environment("2"));
            }),
            "NEURON_LOGICAL_NC_CONFIG in the environment is '2', but trn1.32xlarge "
            "(--instance-type, Trainium1) offers logical NeuronCore config only 1: unset it (or "
            "set 1)");
  EXPECT_EQ(error_of([] {
              planned_neuron_cores(
                  "trn3.48xlarge", "the profile's instance_type",
                  LncRequest{"4", "NEURON_LOGICAL_NC_CONFIG in the profile's env"});
            }),
            "NEURON_LOGICAL_NC_CONFIG in the profile's env is '4', but trn3.48xlarge (the "
            "profile's instance_type, Trainium3) offers logical NeuronCore config 1 or 2: set 1 "
            "or 2, or unset it for 2");
  for (const auto* bad : {"0", "two", "", "-2", "2.0", "4294967298"}) {
    EXPECT_THAT(error_of([&] {
                  planned_neuron_cores("trn2.48xlarge", "--instance-type", from_environment(bad));
                }),
                HasSubstr("offers logical NeuronCore config 1 or 2"))
        << bad;
  }
  // A type without Neuron devices has no config to refuse.
  EXPECT_EQ(planned_neuron_cores("c5.4xlarge", "--instance-type", from_environment("2")), 0);
}

TEST(InstanceCores, TheProfilesEnvWinsOverTheEnvironmentAsInTheTrainingStep) {
  EXPECT_FALSE(requested_lnc({}, std::nullopt));
  const auto from_env = requested_lnc({{"OTHER", "x"}}, "1");
  ASSERT_TRUE(from_env);
  EXPECT_EQ(from_env->value, "1");
  EXPECT_EQ(from_env->source, "NEURON_LOGICAL_NC_CONFIG in the environment");
  const auto from_profile = requested_lnc({{"NEURON_LOGICAL_NC_CONFIG", "2"}}, "1");
  ASSERT_TRUE(from_profile);
  EXPECT_EQ(from_profile->value, "2");
  EXPECT_EQ(from_profile->source, "NEURON_LOGICAL_NC_CONFIG in the profile's env");
}

TEST(InstanceCores, OtherInstanceTypesHaveNoNeuronDevices) {
  EXPECT_EQ(planned_neuron_cores("c5.4xlarge", "--instance-type"), 0);
  EXPECT_EQ(planned_neuron_cores("m7i.metal-24xl", "--instance-type"), 0);
}

TEST(InstanceCores, AnUnknownTrainiumSizeIsAnErrorListingTheKnownTypes) {
  const auto message =
      error_of([] { planned_neuron_cores("trn1.23xlarge", "the profile's instance_type"); });
  EXPECT_THAT(message, HasSubstr("instance type 'trn1.23xlarge' (the profile's instance_type)"));
  EXPECT_THAT(message, HasSubstr("trn1.32xlarge, trn1n.32xlarge, trn2.48xlarge, trn2u.48xlarge, "
                                 "trn3.48xlarge"));
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
