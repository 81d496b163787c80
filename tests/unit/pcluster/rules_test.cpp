// ParallelCluster validators and Trainium rules over the whole config.
#include <gtest/gtest.h>

#include "config_text.hpp"

using namespace trn_test;  // the config helpers and matchers of config_text.hpp

namespace {

const std::string compute_resource =
    "        - Name: trn1-32xl\n"
    "          InstanceType: trn1.32xlarge\n"
    "          MinCount: 0\n"
    "          MaxCount: 16\n"
    "          Efa:\n"
    "            Enabled: true\n";

const std::string queue_placement_group = "        PlacementGroup:\n          Enabled: true\n";

std::string with_compute_resource(const std::string& replacement) {
  return replaced(valid_config, compute_resource, replacement);
}

}  // namespace

TEST(PclusterScheduling, AwsBatchIsRejected) {
  const auto text = replaced(valid_config, "Scheduler: slurm", "Scheduler: awsbatch");
  EXPECT_THAT(errors_of(text),
              ElementsAre(HasSubstr("12:14: Scheduling.Scheduler is 'awsbatch' but "
                                    "trn-slurm runs on Slurm")));
}

TEST(PclusterScheduling, QueueWithoutComputeResources) {
  const auto text = replaced(valid_config, "      ComputeResources:\n" + compute_resource, "");
  EXPECT_THAT(errors_of(text), ElementsAre("14:7: queue 'trn1' has no ComputeResources: add at "
                                           "least one with an InstanceType and MaxCount"));
}

TEST(PclusterNames, QueueNameRules) {
  EXPECT_THAT(errors_of(replaced(valid_config, "Name: trn1\n", "Name: Trn1\n")),
              ElementsAre("14:13: queue name 'Trn1' at Scheduling.SlurmQueues[0] is not valid: use "
                          "lowercase letters, digits and '-', start with a letter, at most 25 "
                          "characters"));
  EXPECT_THAT(errors_of(replaced(valid_config, "Name: trn1\n", "Name: trn_1\n")),
              ElementsAre(HasSubstr("queue name 'trn_1'")));
  EXPECT_THAT(errors_of(replaced(valid_config, "Name: trn1\n", "Name: 1trn\n")),
              ElementsAre(HasSubstr("queue name '1trn'")));
}

TEST(PclusterNames, TwentyFiveCharactersAtMost) {
  const std::string name25(25, 'a');
  EXPECT_THAT(errors_of(replaced(valid_config, "Name: trn1-32xl", "Name: " + name25)), IsEmpty());
  EXPECT_THAT(errors_of(replaced(valid_config, "Name: trn1-32xl", "Name: " + name25 + "b")),
              ElementsAre(HasSubstr("compute resource name '" + name25 + "b'")));
}

TEST(PclusterNames, DuplicateComputeResourceNamesInAQueue) {
  const auto text = with_compute_resource(compute_resource + compute_resource);
  EXPECT_THAT(errors_of(text),
              ElementsAre("22:17: compute resource name 'trn1-32xl' at "
                          "Scheduling.SlurmQueues[0].ComputeResources[1] is already used by "
                          "Scheduling.SlurmQueues[0].ComputeResources[0]: names must be unique"));
}

TEST(PclusterComputeResource, InstanceTypeXorInstances) {
  EXPECT_THAT(
      errors_of(with_compute_resource(
          compute_resource + "          Instances:\n            - InstanceType: trn1.32xlarge\n")),
      ElementsAre(HasSubstr("22:11: compute resource 'trn1-32xl' sets both InstanceType and "
                            "Instances")));
  EXPECT_THAT(errors_of(replaced(valid_config, "          InstanceType: trn1.32xlarge\n", "")),
              ElementsAre(HasSubstr("16:11: compute resource 'trn1-32xl' needs InstanceType")));
}

TEST(PclusterComputeResource, FlexibleInstancesAreCheckedForEfaToo) {
  auto text = replaced(valid_config, "          InstanceType: trn1.32xlarge\n",
                       "          Instances:\n            - InstanceType: trn1.32xlarge\n");
  EXPECT_THAT(errors_of(text), IsEmpty());
  text = replaced(text, "          Efa:\n            Enabled: true\n", "");
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("18:29: compute resource 'trn1-32xl' "
                                                     "(trn1.32xlarge) has 8 EFA devices")));
}

TEST(PclusterComputeResource, MinCountAboveMaxCount) {
  EXPECT_THAT(
      errors_of(replaced(valid_config, "MinCount: 0", "MinCount: 17")),
      ElementsAre("18:11: compute resource 'trn1-32xl' has MinCount 17 greater than MaxCount "
                  "16: MinCount must not exceed MaxCount"));
  EXPECT_THAT(errors_of(replaced(valid_config, "MinCount: 0", "MinCount: 16")), IsEmpty());
}

TEST(PclusterComputeResource, MaxCountDefaultsToTen) {
  auto text = replaced(valid_config, "          MaxCount: 16\n", "");
  EXPECT_THAT(errors_of(replaced(text, "MinCount: 0", "MinCount: 10")), IsEmpty());
  EXPECT_THAT(errors_of(replaced(text, "MinCount: 0", "MinCount: 11")),
              ElementsAre(HasSubstr("MinCount 11 greater than MaxCount 10 (the default)")));
}

TEST(PclusterEfa, Trn1WithoutEfa) {
  const auto text = replaced(valid_config, "          Efa:\n            Enabled: true\n", "");
  EXPECT_THAT(errors_of(text),
              ElementsAre("17:25: compute resource 'trn1-32xl' (trn1.32xlarge) has 8 EFA devices "
                          "but Efa.Enabled is not true: set Efa: {Enabled: true} so multi-node "
                          "collectives run over EFA"));
}

TEST(PclusterEfa, Trn2WithEfaDisabled) {
  // trn2u.48xlarge, an instance of a Trn2 UltraServer, has trn2.48xlarge's 16 EFA devices.
  for (const std::string type : {"trn2.48xlarge", "trn2u.48xlarge"}) {
    auto text = replaced(valid_config, "trn1.32xlarge", type);
    text = replaced(text, "            Enabled: true\n      Networking",
                    "            Enabled: false\n      Networking");
    EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("21:22: compute resource 'trn1-32xl' (" +
                                                       type + ") has 16 EFA devices")));
  }
}

TEST(PclusterEfa, Trainium3WhoseEfaCountIsNotPublishedIsNotJudged) {
  EXPECT_THAT(errors_of(replaced(replaced(valid_config, "trn1.32xlarge", "trn3.48xlarge"),
                                 "          Efa:\n            Enabled: true\n", "")),
              IsEmpty());
}

TEST(PclusterEfa, Trn1nNeedsEfaToo) {
  const auto text = replaced(replaced(valid_config, "trn1.32xlarge", "trn1n.32xlarge"),
                             "          Efa:\n            Enabled: true\n", "");
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("(trn1n.32xlarge) has 16 EFA devices")));
}

TEST(PclusterEfa, Trn1SmallMustNotEnableEfa) {
  const auto text = replaced(valid_config, "trn1.32xlarge", "trn1.2xlarge");
  EXPECT_THAT(errors_of(text),
              ElementsAre("21:22: compute resource 'trn1-32xl' (trn1.2xlarge) has "
                          "no EFA device but Efa.Enabled is true: remove Efa or set "
                          "Enabled: false"));
  EXPECT_THAT(errors_of(replaced(replaced(valid_config, "trn1.32xlarge", "trn1.2xlarge"),
                                 "          Efa:\n            Enabled: true\n", "")),
              IsEmpty());
}

TEST(PclusterEfa, OtherInstanceTypesAreNotJudged) {
  const auto text = replaced(replaced(valid_config, "trn1.32xlarge", "c5.large"),
                             "          Efa:\n            Enabled: true\n", "");
  EXPECT_THAT(errors_of(text), IsEmpty());
}

TEST(PclusterEfa, EfaNeedsAPlacementGroup) {
  const auto text = replaced(valid_config, queue_placement_group, "");
  EXPECT_THAT(
      errors_of(text),
      ElementsAre("21:22: compute resource 'trn1-32xl' enables EFA but has no placement "
                  "group: add Networking: PlacementGroup: Enabled: true to queue 'trn1' (or "
                  "to the compute resource)"));
}

TEST(PclusterEfa, DisabledPlacementGroupCountsAsNone) {
  const auto text = replaced(valid_config, queue_placement_group,
                             "        PlacementGroup:\n          Enabled: false\n");
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("enables EFA but has no placement group")));
}

TEST(PclusterEfa, ExistingPlacementGroupById) {
  const auto text = replaced(valid_config, queue_placement_group,
                             "        PlacementGroup:\n          Id: my-group\n");
  EXPECT_THAT(errors_of(text), IsEmpty());
}

TEST(PclusterEfa, ComputeResourcePlacementGroupReplacesTheQueues) {
  auto text = replaced(valid_config, queue_placement_group, "");
  text = replaced(text, "            Enabled: true\n      Networking",
                  "            Enabled: true\n          Networking:\n            PlacementGroup:\n"
                  "              Enabled: true\n      Networking");
  EXPECT_THAT(errors_of(text), IsEmpty());
  text = replaced(valid_config, "            Enabled: true\n      Networking",
                  "            Enabled: true\n          Networking:\n            PlacementGroup:\n"
                  "              Enabled: false\n      Networking");
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("enables EFA but has no placement group")));
}

TEST(PclusterFsx, CapacityStepsForScratch2) {
  EXPECT_THAT(errors_of(replaced(valid_config, "StorageCapacity: 1200", "StorageCapacity: 2400")),
              IsEmpty());
  EXPECT_THAT(errors_of(replaced(valid_config, "StorageCapacity: 1200", "StorageCapacity: 7200")),
              IsEmpty());
  EXPECT_THAT(errors_of(replaced(valid_config, "StorageCapacity: 1200", "StorageCapacity: 2000")),
              ElementsAre("35:24: FSx for Lustre storage 'fsx' has StorageCapacity 2000 GiB, not "
                          "valid for SCRATCH_2: use 1200 or a multiple of 2400"));
  EXPECT_THAT(errors_of(replaced(valid_config, "StorageCapacity: 1200", "StorageCapacity: 3600")),
              ElementsAre(HasSubstr("StorageCapacity 3600 GiB, not valid for SCRATCH_2")));
}

TEST(PclusterFsx, PersistentDeploymentsFollowTheSameSteps) {
  const auto text = replaced(valid_config, "StorageCapacity: 1200",
                             "StorageCapacity: 1800\n      DeploymentType: PERSISTENT_2");
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("not valid for PERSISTENT_2")));
}

TEST(PclusterFsx, OtherDeploymentsAreNotJudged) {
  EXPECT_THAT(errors_of(replaced(valid_config, "StorageCapacity: 1200",
                                 "StorageCapacity: 3600\n      DeploymentType: SCRATCH_1")),
              IsEmpty());
  EXPECT_THAT(errors_of(replaced(valid_config, "StorageCapacity: 1200",
                                 "StorageCapacity: 6000\n      DeploymentType: PERSISTENT_1\n"
                                 "      StorageType: HDD")),
              IsEmpty());
}

TEST(PclusterPlaceholders, WarningByDefaultErrorWhenStrict) {
  const auto text = replaced(valid_config, "SubnetId: subnet-0123456789abcdef0",
                             "SubnetId: subnet-REPLACE_ME_PUBLIC");
  const auto diagnostics = trn::pcluster::check_cluster_config("t.yaml", text);
  ASSERT_EQ(diagnostics.size(), 1U);
  EXPECT_EQ(diagnostics[0].severity, trn::pcluster::Severity::kWarning);
  EXPECT_EQ(diagnostics[0].to_string(),
            "t.yaml:7:15: warning: placeholder 'subnet-REPLACE_ME_PUBLIC' at "
            "HeadNode.Networking.SubnetId: replace it with your own value before pcluster "
            "create-cluster (see pcluster-configs/README.md)");
  trn::pcluster::CheckOptions strict;
  strict.placeholders_are_errors = true;
  EXPECT_THAT(errors_of(text, strict), ElementsAre(HasSubstr("7:15: placeholder")));
}

TEST(PclusterInstanceTypes, UnknownTypeIsAWarningOrAnErrorWhenStrict) {
  const auto text =
      replaced(valid_config, "InstanceType: trn1.32xlarge", "InstanceType: trn1.32xlarg");
  const auto diagnostics = trn::pcluster::check_cluster_config("t.yaml", text);
  ASSERT_EQ(diagnostics.size(), 1U);
  EXPECT_EQ(diagnostics[0].severity, trn::pcluster::Severity::kWarning);
  EXPECT_THAT(diagnostics[0].message, HasSubstr("'trn1.32xlarg'"));
  trn::pcluster::CheckOptions strict;
  strict.unknown_instance_types_are_errors = true;
  EXPECT_THAT(errors_of(text, strict),
              ElementsAre("17:25: instance type 'trn1.32xlarg' of compute resource 'trn1-32xl' is "
                          "not an EC2 instance type: write FAMILY.SIZE, e.g. trn1.32xlarge"));
  const auto unknown_size =
      replaced(valid_config, "InstanceType: trn1.32xlarge", "InstanceType: trn1.23xlarge");
  EXPECT_THAT(errors_of(unknown_size, strict),
              ElementsAre("17:25: instance type 'trn1.23xlarge' of compute resource 'trn1-32xl' "
                          "is not a Trainium or Inferentia type trn-slurm knows: use one of "
                          "trn1.2xlarge, trn1.32xlarge, trn1n.32xlarge, trn2.48xlarge, "
                          "trn2u.48xlarge, trn3.48xlarge, trn3p.48xlarge, trn3e.24xlarge, "
                          "trn3pd98.3xlarge, inf2.48xlarge"));
}

TEST(PclusterInstanceTypes, ACpuQueueIsNoProblemEvenWhenStrict) {
  const auto text =
      replaced(valid_config, "InstanceType: trn1.32xlarge", "InstanceType: c5.4xlarge");
  trn::pcluster::CheckOptions strict;
  strict.unknown_instance_types_are_errors = true;
  EXPECT_THAT(errors_of(text, strict), Not(Contains(HasSubstr("c5.4xlarge"))));
  EXPECT_THAT(
      errors_of(replaced(valid_config, "InstanceType: trn1.32xlarge", "InstanceType: c5"), strict),
      Contains(HasSubstr("'c5' of compute resource 'trn1-32xl' is not an EC2 instance "
                         "type: write FAMILY.SIZE, e.g. trn1.32xlarge")));
}
