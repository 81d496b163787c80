#include "trn/cache/npc_summary.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trn::cache {
namespace {

// As neuron_parallel_compile prints it (AWS samples and Neuron docs logs).
const char* const success_log =
    "2023-06-11 23:02:01.000112: INFO ||PARALLEL_COMPILE||: Running trial run\n"
    "step 1 loss 11.2\n"
    "2023-06-11 23:04:08.000738: INFO ||PARALLEL_COMPILE||: Total graphs: 22\n"
    "2023-06-11 23:04:08.000738: INFO ||PARALLEL_COMPILE||: Total successful compilations: 22\n"
    "2023-06-11 23:04:08.000738: INFO ||PARALLEL_COMPILE||: Total failed compilations: 0\n";

TEST(NpcSummary, ParsesTheSummaryLines) {
  const auto s = parse_npc_output(success_log);
  EXPECT_EQ(s.total_graphs, 22U);
  EXPECT_EQ(s.successful, 22U);
  EXPECT_EQ(s.failed, 0U);
  EXPECT_FALSE(s.no_todo_hlos);
}

TEST(NpcSummary, NewerLogPrefixWithPid) {
  const auto s = parse_npc_output(
      "2025-01-17 01:16:07.000981:  32201  INFO ||NEURON_PARALLEL_COMPILE||: Total graphs: 2\n"
      "2025-01-17 01:16:07.000981:  32201  INFO ||NEURON_PARALLEL_COMPILE||: Total successful "
      "compilations: 1\n"
      "2025-01-17 01:16:07.000981:  32201  INFO ||NEURON_PARALLEL_COMPILE||: Total failed "
      "compilations: 1");  // no final newline
  EXPECT_EQ(s.total_graphs, 2U);
  EXPECT_EQ(s.successful, 1U);
  EXPECT_EQ(s.failed, 1U);
}

TEST(NpcSummary, LastSummaryWins) {
  const auto s = parse_npc_output(std::string(success_log) +
                                  "INFO: Total graphs: 3\nINFO: Total failed compilations: 2\n");
  EXPECT_EQ(s.total_graphs, 3U);
  EXPECT_EQ(s.failed, 2U);
  EXPECT_EQ(s.successful, 22U);
}

TEST(NpcSummary, TrainerOutputDoesNotFoolIt) {
  const auto s = parse_npc_output("epoch 1 Total graphs: seen\nTotal graphs:\n");
  EXPECT_FALSE(s.total_graphs.has_value());
}

TEST(NpcSummary, ARunEndsWithItsSummaryNothingToDoOrTheScriptsFailure) {
  EXPECT_TRUE(npc_run_ended(parse_npc_output(success_log)));
  EXPECT_TRUE(npc_run_ended(parse_npc_output(
      "INFO ||NEURON_PARALLEL_COMPILE||: No todo hlos found in cache or hlo_tasklist\n")));
  EXPECT_TRUE(npc_run_ended(parse_npc_output(
      "ERROR ||NEURON_PARALLEL_COMPILE||: There was an error in the training script.\n")));
  // A node lost while it compiled: its trial run's output, then nothing.
  EXPECT_FALSE(npc_run_ended(
      parse_npc_output("INFO ||NEURON_PARALLEL_COMPILE||: Running trial run\nstep 1 loss 11.2\n"
                       "INFO ||NEURON_PARALLEL_COMPILE||: New graph list from script 3\n")));
  EXPECT_FALSE(npc_run_ended(parse_npc_output("")));
}

// interpret_npc_run's result for `output` and `exit_status`, expected to have `outcome`.
CompileResult run_with_outcome(std::string_view output, int exit_status, CompileOutcome outcome) {
  auto result = interpret_npc_run(output, exit_status);
  EXPECT_EQ(result.outcome, outcome);
  return result;
}

TEST(NpcRun, Compiled) {
  const auto r = run_with_outcome(success_log, 0, CompileOutcome::kCompiled);
  EXPECT_TRUE(r.ok());
  EXPECT_THAT(r.message, ::testing::HasSubstr("22 graphs compiled"));
}

TEST(NpcRun, NothingToCompile) {
  const auto r = run_with_outcome(
      "2024-01-01 00:00:00.000001: INFO ||NEURON_PARALLEL_COMPILE||: No todo hlos found in cache "
      "or hlo_tasklist, parallel_compile return before spawning workers....\n",
      0, CompileOutcome::kNothingToCompile);
  EXPECT_TRUE(r.ok());
}

TEST(NpcRun, FailuresFromTheSummaryEvenWhenTheExitStatusWrapped) {
  auto r = run_with_outcome(
      "Total graphs: 5\nTotal successful compilations: 3\n"
      "Total failed compilations: 2\n",
      2, CompileOutcome::kCompileFailed);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.message, ::testing::HasSubstr("2 graphs failed to compile (of 5)"));
  // 256 failures exit 0: only the summary tells.
  r = run_with_outcome(
      "Total graphs: 300\nTotal successful compilations: 44\n"
      "Total failed compilations: 256\n",
      0, CompileOutcome::kCompileFailed);
  EXPECT_FALSE(r.ok());
}

TEST(NpcRun, OneFailedGraphIsNotAScriptFailure) {
  const auto r = run_with_outcome("Total graphs: 1\nTotal failed compilations: 1\n", 1,
                                  CompileOutcome::kCompileFailed);
  EXPECT_THAT(r.message, ::testing::HasSubstr("1 graph failed"));
}

TEST(NpcRun, TrainingScriptFailure) {
  auto r = run_with_outcome(
      "Traceback (most recent call last):\nValueError: bad\n"
      "2024-01-01 00:00:00.000001: ERROR ||NEURON_PARALLEL_COMPILE||: There was an error in the "
      "training script.\n",
      1, CompileOutcome::kScriptFailed);
  EXPECT_FALSE(r.ok());
  // Exit 1 with no summary at all: also the script.
  run_with_outcome("Traceback ...\n", 1, CompileOutcome::kScriptFailed);
}

TEST(NpcRun, OtherFailures) {
  run_with_outcome("usage: neuron_parallel_compile ...\nerror: argument --command\n", 2,
                   CompileOutcome::kFailedOtherwise);
  const auto r = run_with_outcome("", -9, CompileOutcome::kFailedOtherwise);
  EXPECT_THAT(r.message, ::testing::HasSubstr("killed by signal 9"));
}

TEST(NpcRun, Json) {
  const auto json = to_json(interpret_npc_run(success_log, 0));
  EXPECT_EQ(json["outcome"], "compiled");
  EXPECT_EQ(json["ok"], true);
  EXPECT_EQ(json["total_graphs"], 22);
  EXPECT_EQ(json["failed"], 0);
  EXPECT_EQ(to_json(interpret_npc_run("", 1))["total_graphs"], nullptr);
}

}  // namespace
}  // namespace trn::cache
