#include "trn/run/failure_diagnosis.hpp"

#include <gtest/gtest.h>

namespace {

using trn::run::diagnose_training_failure;
using trn::run::FailureKind;
using trn::run::RankOutput;

std::string traceback(const std::string& exception) {
  return "step 1/10 | loss 9.1\nTraceback (most recent call last):\n  File \"x.py\", line 3, in "
         "<module>\n"
         "    main()\n" +
         exception + "\n";
}

TEST(FailureDiagnosis, SameExceptionOnEveryRankIsTheUsers) {
  const auto diagnosis = diagnose_training_failure(
      {{0, "n1", traceback("ValueError: global batch 60 is not a multiple of 8")},
       {1, "n2", traceback("ValueError: global batch 60 is not a multiple of 8")}},
      2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kUserError);
  EXPECT_EQ(diagnosis.exception, "ValueError: global batch 60 is not a multiple of 8");
  EXPECT_NE(diagnosis.excerpt.find("File \"x.py\""), std::string::npos);
}

TEST(FailureDiagnosis, TheSameErrorLineOnEveryRankIsTheUsers) {
  const std::string error = "trn_trainer: error: --data /x: not a directory; give the shard folder";
  const auto diagnosis = diagnose_training_failure(
      {{0, "n1", "starting\n" + error + "\n"}, {1, "n2", error + "\n"}}, 2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kUserError);
  EXPECT_EQ(diagnosis.exception, error);
}

TEST(FailureDiagnosis, ALastLineThatIsNoErrorMeansANodeFailure) {
  const auto diagnosis = diagnose_training_failure(
      {{0, "n1", "step 3/10 | loss 8.1\n"}, {1, "n2", "step 3/10 | loss 8.1\n"}}, 2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kNodeFailure);
}

TEST(FailureDiagnosis, ARankWithoutExceptionMeansANodeFailure) {
  const auto diagnosis =
      diagnose_training_failure({{0, "n1", traceback("RuntimeError: Connection closed by peer")},
                                 {1, "n2", "step 1/10 | loss 9.1\n"}},
                                2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kNodeFailure);
  EXPECT_NE(diagnosis.summary.find("1 of 2 ranks"), std::string::npos) << diagnosis.summary;
}

TEST(FailureDiagnosis, DifferentExceptionsMeanANodeFailure) {
  const auto diagnosis =
      diagnose_training_failure({{0, "n1", traceback("RuntimeError: Connection reset by peer")},
                                 {1, "n2", traceback("RuntimeError: [gloo] Timed out")}},
                                2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kNodeFailure);
}

TEST(FailureDiagnosis, MissingRanksMeanANodeFailure) {
  // The rank on the lost node wrote nothing at all.
  const auto diagnosis = diagnose_training_failure(
      {{0, "n1", traceback("RuntimeError: Connection closed by peer")}}, 2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kNodeFailure);
}

TEST(FailureDiagnosis, SplitsSrunLabels) {
  const auto ranks =
      trn::run::split_labelled_output(" 0: step 1\n10: hello\n 0: step 2\nnoise\n", "n1");
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].rank, 0u);
  EXPECT_EQ(ranks[0].text, "step 1\nstep 2\n");
  EXPECT_EQ(ranks[1].rank, 10u);
  EXPECT_EQ(ranks[1].text, "hello\n");
  EXPECT_EQ(ranks[1].node, "n1");
}

}  // namespace
