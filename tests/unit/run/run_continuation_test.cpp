// Continuing a run directory from a new job (--resume, --run-dir): its plan must fit.
#include "trn/run/run_continuation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include "trn/common/error.hpp"
#include "trn/plan/plan_report.hpp"

namespace {

using testing::HasSubstr;
using trn::run::check_run_dir_continues;

trn::plan::Plan earlier_plan() {
  trn::plan::Plan plan;
  plan.profile = "bert_tiny";
  plan.model = "tiny";
  plan.seq_len = 128;
  plan.global_batch = 64;
  plan.nodes = 2;
  plan.grad_accum = 4;
  plan.run_dir = "runs/bert_tiny-7";
  return plan;
}

std::string error_of(const std::filesystem::path& dir, const trn::plan::Plan& plan,
                     bool must_exist) {
  try {
    check_run_dir_continues(dir, plan, "--resume " + dir.string(), must_exist);
  } catch (const trn::Error& e) {
    return e.what();
  }
  return "";
}

TEST(RunContinuation, AnotherNodeCountWithTheSameGlobalBatchContinues) {
  trn::test::TempDir dir;
  dir.write("plan.json", trn::plan::to_json(earlier_plan()).dump());
  auto plan = earlier_plan();
  plan.nodes = 4;
  plan.grad_accum = 2;
  EXPECT_EQ(error_of(dir.path(), plan, true), "");
}

TEST(RunContinuation, AnotherGlobalBatchIsAnErrorNamingBoth) {
  trn::test::TempDir dir;
  dir.write("plan.json", trn::plan::to_json(earlier_plan()).dump());
  auto plan = earlier_plan();
  plan.global_batch = 128;
  const auto message = error_of(dir.path(), plan, true);
  EXPECT_THAT(message, HasSubstr("--resume " + dir.path().string() +
                                 ": the run there has global_batch 64 but this plan 128"));
  EXPECT_THAT(message, HasSubstr("--global-batch"));
}

TEST(RunContinuation, AnotherProfileOrModelIsAnError) {
  trn::test::TempDir dir;
  dir.write("plan.json", trn::plan::to_json(earlier_plan()).dump());
  auto plan = earlier_plan();
  plan.profile = "bert_pretrain";
  EXPECT_THAT(error_of(dir.path(), plan, true),
              HasSubstr("has profile bert_tiny but this plan bert_pretrain"));
  plan = earlier_plan();
  plan.model = "large";
  EXPECT_THAT(error_of(dir.path(), plan, true), HasSubstr("has model tiny but this plan large"));
}

TEST(RunContinuation, ResumeNeedsAnEarlierRunRunDirMayStartOne) {
  trn::test::TempDir dir;
  EXPECT_THAT(error_of(dir.path() / "nothing", earlier_plan(), true),
              HasSubstr("plan.json does not exist, so this is not a trn-run run directory"));
  EXPECT_EQ(error_of(dir.path() / "nothing", earlier_plan(), false), "");
}

}  // namespace
