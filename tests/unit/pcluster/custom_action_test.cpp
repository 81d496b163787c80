// CustomActions: Script (+Args) or Sequence, never both; the trn-slurm install action.
#include <gtest/gtest.h>

#include "config_text.hpp"

using namespace trn_test;  // the config helpers and matchers of config_text.hpp

namespace {

const std::string head_action =
    "    OnNodeConfigured:\n      Script: s3://bucket/trn-slurm/trn-slurm-setup.sh\n";

}  // namespace

TEST(PclusterCustomAction, ScriptWithArgs) {
  const auto text = replaced(valid_config, head_action,
                             head_action + "      Args:\n        - --source\n        - s3://b/x\n");
  EXPECT_THAT(errors_of(text), IsEmpty());
}

TEST(PclusterCustomAction, SequenceRunningTheInstallScript) {
  const auto text = replaced(valid_config, head_action,
                             "    OnNodeConfigured:\n"
                             "      Sequence:\n"
                             "        - Script: s3://bucket/other.sh\n"
                             "        - Script: s3://bucket/trn-slurm/trn-slurm-setup.sh\n"
                             "          Args: [--source, s3://b/x]\n");
  EXPECT_THAT(errors_of(text), IsEmpty());
}

TEST(PclusterCustomAction, ScriptAndSequenceTogether) {
  const auto text = replaced(valid_config, head_action,
                             head_action + "      Sequence:\n        - Script: s3://bucket/a.sh\n");
  EXPECT_THAT(errors_of(text),
              ElementsAre("11:7: HeadNode.CustomActions.OnNodeConfigured sets both "
                          "Script and Sequence: use Script (with Args) for one "
                          "script or Sequence for several, not both"));
}

TEST(PclusterCustomAction, NeitherScriptNorSequence) {
  const auto text = replaced(valid_config, head_action, "    OnNodeConfigured:\n      Args: [x]\n");
  EXPECT_THAT(
      errors_of(text),
      ElementsAre("9:5: HeadNode.CustomActions.OnNodeConfigured needs Script (with optional "
                  "Args) or Sequence",
                  HasSubstr("9:5: CustomActions.OnNodeConfigured of HeadNode does not "
                            "run trn-slurm-setup.sh")));
}

TEST(PclusterCustomAction, ArgsBelongInsideSequenceItems) {
  const auto text = replaced(valid_config, head_action,
                             "    OnNodeConfigured:\n      Sequence:\n"
                             "        - Script: s3://bucket/trn-slurm/trn-slurm-setup.sh\n"
                             "      Args: [x]\n");
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("12:7: unknown key 'Args' in "
                                                     "HeadNode.CustomActions.OnNodeConfigured; "
                                                     "allowed keys: Sequence")));
}

TEST(PclusterCustomAction, OnNodeUpdatedOnlyOnTheHeadNode) {
  const std::string queue_action = "      CustomActions:\n        OnNodeConfigured:\n";
  const auto text = replaced(valid_config, queue_action,
                             "      CustomActions:\n        OnNodeUpdated:\n          Script: "
                             "s3://b/u.sh\n        OnNodeConfigured:\n");
  EXPECT_THAT(errors_of(text),
              testing::Contains(HasSubstr("unknown key 'OnNodeUpdated' in "
                                          "Scheduling.SlurmQueues[0].CustomActions")));
}

TEST(PclusterInstallAction, MissingOnTheHeadNode) {
  const auto text = replaced(valid_config, "  CustomActions:\n" + head_action, "");
  EXPECT_THAT(errors_of(text),
              ElementsAre("4:1: HeadNode has no CustomActions.OnNodeConfigured that "
                          "installs trn-slurm: run "
                          "s3://<bucket>/trn-slurm/trn-slurm-setup.sh there (see "
                          "pcluster-configs/README.md)"));
}

TEST(PclusterInstallAction, MissingOnAQueue) {
  const auto text = replaced(valid_config,
                             "      CustomActions:\n        OnNodeConfigured:\n          Script: "
                             "s3://bucket/trn-slurm/trn-slurm-setup.sh\n",
                             "");
  EXPECT_THAT(errors_of(text), ElementsAre(HasSubstr("14:7: queue 'trn1' has no "
                                                     "CustomActions.OnNodeConfigured")));
}

TEST(PclusterInstallAction, AnotherScriptIsNotTheInstallAction) {
  const auto text = replaced(valid_config, "Script: s3://bucket/trn-slurm/trn-slurm-setup.sh",
                             "Script: s3://bucket/trn-slurm/setup.sh");
  EXPECT_THAT(errors_of(text),
              ElementsAre(HasSubstr("9:5: CustomActions.OnNodeConfigured of HeadNode "
                                    "does not run trn-slurm-setup.sh")));
}
