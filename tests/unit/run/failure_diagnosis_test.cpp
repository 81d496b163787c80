#include "trn/run/failure_diagnosis.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "trn/run/neuron_hardware_status.hpp"

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

// Node logs as srun --label --output=%N writes them when the step is cancelled: slurmstepd's
// line goes to the first task of each node, srun's own lines are not rank output at all.
const std::string kDataError =
    "trn_trainer: error: --data /fsx/shards: not a directory; give the folder of the HDF5 shards";
std::string cancelled(const std::string& node) {
  return "slurmstepd: error: *** STEP 4242.0 ON " + node + " CANCELLED AT 2024-05-02T10:11:12 ***";
}
std::vector<RankOutput> node_logs(const std::vector<std::pair<std::string, std::string>>& logs) {
  std::vector<RankOutput> ranks;
  for (const auto& [node, labelled] : logs) {
    for (auto& rank : trn::run::split_labelled_output(labelled, node)) ranks.push_back(rank);
  }
  return ranks;
}

TEST(FailureDiagnosis, SlurmsLinesAfterTheSameErrorOnEveryRankLeaveItTheUsers) {
  const auto diagnosis = diagnose_training_failure(
      node_logs({{"n1", "0: " + kDataError + "\n0: " + cancelled("n1") + "\n"},
                 {"n2", "1: " + kDataError + "\n1: " + cancelled("n2") +
                            "\n1: srun: error: n2: task 1: Exited with exit code 2\n"}}),
      2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kUserError) << diagnosis.summary;
  EXPECT_EQ(diagnosis.exception, kDataError);
}

TEST(FailureDiagnosis, RanksCancelledBeforeTheirOwnCheckLeaveAnErrorLineTheUsers) {
  // Recorded on the local test cluster (2 nodes x 2 tasks, srun --label --kill-on-bad-exit=1
  // --output=%N): rank 0 rejected its input, the step was cancelled before the other ranks got
  // to their own check. Only the failing node gets slurmstepd's line (named slurmstepd-NODE
  // where one host runs several slurmd); the other node's log simply stops mid-line.
  const auto diagnosis = diagnose_training_failure(
      node_logs({{"n1", "1: started\n0: " + kDataError +
                            "\n0: slurmstepd-n1: error: *** STEP 1.0 ON n1 CANCELLED AT "
                            "2024-05-02T10:11:12 ***\n"},
                 {"n2", "3: started\n2: started"}}),
      4);
  EXPECT_EQ(diagnosis.kind, FailureKind::kUserError) << diagnosis.summary;
  EXPECT_EQ(diagnosis.exception, kDataError);
}

TEST(FailureDiagnosis, ALoneTracebackWithTheOtherRanksCancelledIsANodeFailure) {
  // A rank that lost its peer raises; the peer is then cancelled: the fabric or a node failed.
  const auto diagnosis = diagnose_training_failure(
      node_logs({{"n1",
                  "0: step 3/10 | loss 8.1\n0: Traceback (most recent call last):\n0:   File "
                  "\"x.py\", line 3, in <module>\n0: RuntimeError: Connection reset by peer\n0: " +
                      cancelled("n1") + "\n"},
                 {"n2", "1: step 3/10 | loss 8.1\n1: " + cancelled("n2") + "\n"}}),
      2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kNodeFailure);
}

TEST(FailureDiagnosis, AnErrorLineWithASilentRankAndNoCancelIsANodeFailure) {
  const auto diagnosis = diagnose_training_failure(
      {{0, "n1", kDataError + "\n"}, {1, "n2", "step 3/10 | loss 8.1\n"}}, 2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kNodeFailure);
}

TEST(FailureDiagnosis, TheFirstErrorCountsNotAWarningMentioningOne) {
  const std::string diverged =
      "trn_trainer: error: step 2: the loss is nan, not finite, at learning rate 8.33e+08: "
      "training diverged and stops without saving this step; lower --lr";
  const auto diagnosis = diagnose_training_failure(
      {{0, "n1",
        "warning: skipping checkpoint ckpt_8.pt: cannot be loaded (UnpicklingError: bad); trying "
        "an older one\nstep 1/10 | loss 9.1\n" +
            diverged + "\n" + cancelled("n1") + "\n"},
       {1, "n2", diverged + "\n" + cancelled("n2") + "\n"}},
      2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kUserError) << diagnosis.summary;
  EXPECT_EQ(diagnosis.exception, diverged);
}

TEST(FailureDiagnosis, OnlySlurmsLinesAreNoUserError) {
  const auto diagnosis = diagnose_training_failure(
      {{0, "n1", cancelled("n1") + "\n"}, {1, "n2", cancelled("n2") + "\n"}}, 2);
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

namespace {

// A Neuron hardware status on one rank outranks every other rank's identical traceback: the
// others only followed it down (collectives fail once a peer's NeuronCore is gone).
TEST(FailureDiagnosis, ANeuronHardwareStatusIsTheFailureOfThatRanksNode) {
  const auto diagnosis = diagnose_training_failure(
      {{0, "n1", traceback("RuntimeError: collective timed out")},
       {1, "n2",
        "2026-Nov-24 10:00:00.000 ERROR NRT:nrt_execute failed with status=1202\n" +
            traceback("RuntimeError: collective timed out")}},
      2);
  EXPECT_EQ(diagnosis.kind, FailureKind::kNodeFailure);
  EXPECT_EQ(diagnosis.failed_node, "n2");
  EXPECT_EQ(diagnosis.node_evidence, "NRT_EXEC_HW_ERR_NC_UE (1202) on rank 1");
  EXPECT_NE(diagnosis.summary.find("node n2 failed"), std::string::npos);
}

TEST(NeuronHardwareStatus, ByNameByCodeAndKernelLine) {
  using trn::run::find_neuron_hardware_status;
  EXPECT_EQ(find_neuron_hardware_status("NrtError: NRT_EXEC_HW_ERR_HBM_UE: uncorrectable"),
            "NRT_EXEC_HW_ERR_HBM_UE (1201)");
  EXPECT_EQ(find_neuron_hardware_status("nrt_execute status: 1203"),
            "NRT_EXEC_HW_ERR_DMA_ABORT (1203)");
  EXPECT_EQ(find_neuron_hardware_status("Status = 1205 on nd0"),
            "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE (1205)");
  EXPECT_EQ(find_neuron_hardware_status("x NEURON_HW_ERR=DMA_ERROR nd-id=3"),
            "NEURON_HW_ERR=DMA_ERROR");
  // Not hardware: 1204 is a software queue overflow, 1200 a peer's collective failure, and
  // numbers that merely contain a code.
  EXPECT_FALSE(find_neuron_hardware_status("status=1204 NRT_EXEC_SW_NQ_OVERFLOW"));
  EXPECT_FALSE(find_neuron_hardware_status("status=1200 NRT_EXEC_HW_ERR_COLLECTIVES"));
  EXPECT_FALSE(find_neuron_hardware_status("status=12021 step 1202 of 5000"));
  EXPECT_FALSE(find_neuron_hardware_status("NRT_EXEC_HW_ERR_NC_UEX"));
}

}  // namespace
