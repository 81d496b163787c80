// The training stack and Capacity Block rules (rule_training_stack.cpp, rule_capacity_block.cpp):
// TorchNeuron only on trn2/trn3 and only on Ubuntu 24.04; a Capacity Block queue names its block
// and runs static nodes.
#include "config_text.hpp"

namespace {

using namespace trn_test;

const std::string kTrn2 = replaced(replaced(valid_config, "trn1.32xlarge", "trn2.48xlarge"),
                                   "- Name: trn1-32xl", "- Name: trn2-48xl");

std::string with_stack(const std::string& text, const std::string& stack) {
  return replaced(text,
                  "      CustomActions:\n        OnNodeConfigured:\n          Script: "
                  "s3://bucket/trn-slurm/trn-slurm-setup.sh\n",
                  "      CustomActions:\n        OnNodeConfigured:\n          Script: "
                  "s3://bucket/trn-slurm/trn-slurm-setup.sh\n          Args:\n            - "
                  "--stack\n            - " +
                      stack + "\n");
}

TEST(PclusterTrainingStack, TorchNeuronOnTrn2OnUbuntu2404IsFine) {
  EXPECT_THAT(errors_of(kTrn2), IsEmpty());
  EXPECT_THAT(errors_of(with_stack(kTrn2, "torchneuron")), IsEmpty());
  EXPECT_THAT(errors_of(with_stack(valid_config, "xla")), IsEmpty());
}

TEST(PclusterTrainingStack, TorchNeuronOnATrn1QueueIsAnError) {
  EXPECT_THAT(errors_of(with_stack(valid_config, "torchneuron")),
              ElementsAre("32:15: queue 'trn1' installs the TorchNeuron stack (--stack "
                          "torchneuron) on trn1.32xlarge, but TorchNeuron supports trn2 and trn3 "
                          "only: use --stack xla (or auto)"));
}

TEST(PclusterTrainingStack, Trn2OnAnotherOsIsAnErrorUnlessItKeepsTorchXla) {
  const auto jammy = replaced(kTrn2, "Os: ubuntu2404", "Os: ubuntu2204");
  EXPECT_THAT(errors_of(jammy),
              ElementsAre("3:7: Image.Os is ubuntu2204, but queue 'trn1' (trn2.48xlarge) gets "
                          "Neuron 2.33's TorchNeuron stack, which supports Ubuntu 24.04 and 26.04 "
                          "only: set Image: Os: ubuntu2404"));
  EXPECT_THAT(errors_of(with_stack(jammy, "torchneuron")), testing::SizeIs(1));
  EXPECT_THAT(errors_of(with_stack(jammy, "xla")), IsEmpty());
  // trn1 keeps torch-xla whatever the OS.
  EXPECT_THAT(errors_of(replaced(valid_config, "Os: ubuntu2404", "Os: ubuntu2204")), IsEmpty());
}

const std::string kBlock =
    replaced(replaced(replaced(kTrn2, "    - Name: trn1\n",
                               "    - Name: trn1\n      CapacityType: CAPACITY_BLOCK\n"),
                      "MinCount: 0", "MinCount: 16"),
             "          MaxCount: 16\n",
             "          MaxCount: 16\n          CapacityReservationTarget:\n            "
             "CapacityReservationId: cr-0123456789abcdef0\n");

TEST(PclusterCapacityBlock, AQueueWithItsBlockAndStaticNodesIsFine) {
  EXPECT_THAT(errors_of(kBlock), IsEmpty());
}

TEST(PclusterCapacityBlock, TheBlockMustBeNamedAndItsNodesStatic) {
  EXPECT_THAT(errors_of(replaced(kBlock, "MinCount: 16", "MinCount: 0")),
              ElementsAre("19:11: compute resource 'trn2-48xl' of Capacity Block queue 'trn1' has "
                          "MinCount 0 and MaxCount 16: a block's instances are static nodes, set "
                          "both to the block's instance count"));
  EXPECT_THAT(errors_of(replaced(kBlock,
                                 "          CapacityReservationTarget:\n            "
                                 "CapacityReservationId: cr-0123456789abcdef0\n",
                                 "")),
              ElementsAre(HasSubstr("compute resource 'trn2-48xl' of Capacity Block queue 'trn1' "
                                    "names no block: add CapacityReservationTarget: "
                                    "CapacityReservationId: cr-...")));
  // ONDEMAND queues are not judged.
  EXPECT_THAT(errors_of(replaced(replaced(kBlock, "CAPACITY_BLOCK", "ONDEMAND"), "MinCount: 16",
                                 "MinCount: 0")),
              IsEmpty());
}

}  // namespace
