// Schema rules: required, unknown and duplicate keys, value types and formats.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config_text.hpp"

using namespace trn_test;  // the config helpers and matchers of config_text.hpp

TEST(PclusterSchema, ValidConfigHasNoFindings) {
  EXPECT_THAT(trn::pcluster::check_cluster_config("t.yaml", valid_config), IsEmpty());
}

TEST(PclusterSchema, YamlSyntaxErrorIsLocated) {
  EXPECT_THAT(errors_of("Image:\n  Os: [ubuntu2404\nHeadNode: {}\n"),
              ElementsAre(HasSubstr("not valid YAML")));
  // yaml-cpp notices the unclosed list where the next mapping starts.
  const auto errors = errors_of("Image:\n  Os: [ubuntu2404\nHeadNode: {}\n");
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0].substr(0, 2), "3:");
}

// yaml-cpp 0.7's LoadAll never returned on a ',' where a value starts (found by tests/fuzz).
TEST(PclusterSchema, CommaWhereAValueStartsIsAnError) {
  EXPECT_THAT(errors_of(",\n"), ElementsAre(HasSubstr("not valid YAML: unexpected ','")));
  EXPECT_THAT(errors_of("Image:\n  Os: alinux2\n---\n,\n"),
              ElementsAre(HasSubstr("not valid YAML: unexpected ','")));
}

// A change to the valid configuration (`from` replaced by `to`) and the one error it causes.
struct Mistake {
  std::string from;
  std::string to;
  std::string error;
};

void expect_only_errors(const std::vector<Mistake>& mistakes) {
  for (const auto& [from, to, error] : mistakes) {
    EXPECT_THAT(errors_of(replaced(valid_config, from, to)), ElementsAre(error)) << to;
  }
}

TEST(PclusterSchema, TopLevelMustBeAMapping) {
  EXPECT_THAT(errors_of("- a\n- b\n"),
              ElementsAre("1:1: a cluster configuration must be a mapping "
                          "of keys (Image, HeadNode, Scheduling, ...), got "
                          "a list"));
  EXPECT_THAT(errors_of(""), ElementsAre(HasSubstr("got no value")));
}

TEST(PclusterSchema, MissingTopLevelSection) {
  expect_only_errors({{"Image:\n  Os: ubuntu2404\n", "",
                       "1:1: the configuration is missing the required key 'Image'"}});
}

TEST(PclusterSchema, MissingNestedKeyIsReportedAtItsParentKey) {
  expect_only_errors(
      {{"    SubnetId: subnet-0123456789abcdef0\n", "    AdditionalSecurityGroups: [sg-01234567]\n",
        "6:3: HeadNode.Networking is missing the required key 'SubnetId'"}});
}

TEST(PclusterSchema, UnknownKeyNamesTheAllowedOnes) {
  const auto text =
      replaced(valid_config, "  InstanceType: c5.4xlarge", "  InstanceTyp: c5.4xlarge");
  const auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 2U);
  EXPECT_THAT(errors[0], HasSubstr("4:1: HeadNode is missing the required key 'InstanceType'"));
  EXPECT_THAT(errors[1], HasSubstr("5:3: unknown key 'InstanceTyp' in HeadNode; allowed keys: "
                                   "CustomActions, Dcv, DisableSimultaneousMultithreading"));
}

TEST(PclusterSchema, UnknownKeyInsideAListElement) {
  const auto text = replaced(valid_config, "          MaxCount: 16\n",
                             "          MaxCount: 16\n          Spot: true\n");
  EXPECT_THAT(
      errors_of(text),
      ElementsAre(HasSubstr("20:11: unknown key 'Spot' in "
                            "Scheduling.SlurmQueues[0].ComputeResources[0]; allowed keys:")));
}

TEST(PclusterSchema, DuplicateKeyIsAnErrorAtTheSecondOccurrence) {
  expect_only_errors(
      {{"          MaxCount: 16\n", "          MaxCount: 16\n          MaxCount: 8\n",
        "20:11: duplicate key 'MaxCount' in "
        "Scheduling.SlurmQueues[0].ComputeResources[0] (first at line 19): "
        "ParallelCluster rejects duplicate keys, keep only one"}});
}

TEST(PclusterSchema, DuplicateTopLevelSection) {
  const auto text = valid_config + "Image:\n  Os: alinux2023\n";
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("36:1: duplicate key 'Image' in the top level "
                                                     "(first at line 2)")));
}

TEST(PclusterSchema, IntegerBooleanAndStringTypes) {
  expect_only_errors({{"MaxCount: 16", "MaxCount: sixteen",
                       "19:21: Scheduling.SlurmQueues[0].ComputeResources[0].MaxCount must be an "
                       "integer, got the string 'sixteen'"},
                      {"Region: us-east-1", "Region: 42",
                       "1:9: Region must be a string, got the integer '42' (quote it if you mean "
                       "the text)"}});
  const auto text = replaced(valid_config, "            Enabled: true\n      Networking",
                             "            Enabled: maybe\n      Networking");
  EXPECT_THAT(errors_of(text), testing::Contains(HasSubstr("Efa.Enabled must be true or false, got "
                                                           "the string 'maybe'")));
}

TEST(PclusterSchema, QuotedNumberIsAString) {
  EXPECT_THAT(errors_of(replaced(valid_config, "Region: us-east-1", "Region: '42'")), IsEmpty());
}

TEST(PclusterSchema, ListAndMappingShapes) {
  expect_only_errors({{"        SubnetIds:\n          - subnet-0123456789abcdef0\n",
                       "        SubnetIds: subnet-0123456789abcdef0\n",
                       "23:20: Scheduling.SlurmQueues[0].Networking.SubnetIds must be a list, got "
                       "the string 'subnet-0123456789abcdef0'"},
                      {"  InstanceType: c5.4xlarge\n", "  InstanceType: [c5.4xlarge]\n",
                       "5:17: HeadNode.InstanceType must be a string, got a list"}});
}

TEST(PclusterSchema, EmptyValueIsReportedAtItsKey) {
  expect_only_errors({{"  InstanceType: c5.4xlarge\n", "  InstanceType: c5.4xlarge\n  Ssh:\n",
                       "6:3: HeadNode.Ssh has no value: give it one or remove the key"}});
}

TEST(PclusterSchema, EnumeratedValue) {
  const auto text = replaced(valid_config, "Os: ubuntu2404", "Os: ubuntu1804");
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("3:7: Image.Os 'ubuntu1804' is not one of the "
                                                     "allowed values: alinux2, alinux2023")));
}

TEST(PclusterSchema, SubnetIdFormat) {
  expect_only_errors({{"SubnetId: subnet-0123456789abcdef0", "SubnetId: subnet-xyz",
                       "7:15: HeadNode.Networking.SubnetId 'subnet-xyz' is not valid: expected "
                       "'subnet-' and 8 or 17 lowercase letters or digits"}});
  EXPECT_THAT(errors_of(replaced(valid_config, "SubnetId: subnet-0123456789abcdef0",
                                 "SubnetId: subnet-01234567")),
              IsEmpty());
}

TEST(PclusterSchema, IntegerMinimum) {
  const auto text = replaced(valid_config, "MaxCount: 16", "MaxCount: 0");
  EXPECT_THAT(errors_of(text), testing::Contains("19:21: Scheduling.SlurmQueues[0].ComputeResources"
                                                 "[0].MaxCount must be at least 1, got 0"));
}

TEST(PclusterSchema, MountDirFormat) {
  const auto text = replaced(valid_config, "MountDir: /fsx", "MountDir: /fsx/.hidden");
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("SharedStorage[0].MountDir '/fsx/.hidden' is "
                                                     "not valid")));
}

TEST(PclusterSchema, UnmodelledSectionsAreAccepted) {
  const auto text = valid_config + "Monitoring:\n  Logs:\n    CloudWatch:\n      Enabled: true\n";
  EXPECT_THAT(errors_of(text), IsEmpty());
}

TEST(PclusterSchema, ErrorsAreSortedByPosition) {
  auto text = replaced(valid_config, "MaxCount: 16", "MaxCount: x");
  text = replaced(text, "Os: ubuntu2404", "Os: dos");
  const auto diagnostics = trn::pcluster::check_cluster_config("t.yaml", text);
  ASSERT_EQ(diagnostics.size(), 2U);
  EXPECT_LT(diagnostics[0].line, diagnostics[1].line);
}

TEST(PclusterSchema, MergeKeysAreMergedBeforeTheSchemaCheck) {
  // The queue's install action merged from the head node's (a map after <<).
  auto text = replaced(valid_config, "  CustomActions:\n    OnNodeConfigured:",
                       "  CustomActions: &install\n    OnNodeConfigured:");
  text = replaced(text,
                  "      CustomActions:\n        OnNodeConfigured:\n"
                  "          Script: s3://bucket/trn-slurm/trn-slurm-setup.sh\n",
                  "      CustomActions:\n        <<: *install\n");
  EXPECT_THAT(trn::pcluster::check_cluster_config("t.yaml", text), IsEmpty());

  // A second compute resource from the first (a list after <<): explicit keys win, so its own
  // Name is not a duplicate and its own MinCount is the one checked.
  text = replaced(valid_config, "        - Name: trn1-32xl\n",
                  "        - &base\n          Name: trn1-32xl\n");
  text = replaced(text, "      Networking:\n        SubnetIds:",
                  "        - <<: [*base]\n          Name: trn1-32xl-b\n          MinCount: 20\n"
                  "      Networking:\n        SubnetIds:");
  EXPECT_THAT(errors_of(text),
              ElementsAre(HasSubstr("25:11: compute resource 'trn1-32xl-b' has MinCount 20 "
                                    "greater than MaxCount 16")));
}

TEST(PclusterSchema, MergeKeyOfAnotherShapeIsAnError) {
  const auto text = replaced(valid_config, "  Os: ubuntu2404\n", "  Os: ubuntu2404\n  <<: 5\n");
  EXPECT_THAT(errors_of(text),
              ElementsAre(HasSubstr("4:3: the merge key '<<' in Image must be given a mapping "
                                    "or a list of mappings")));
}
