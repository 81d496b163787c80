// The plan's checkpoint settings: the node-local tier (checkpoint_local_dir), {resume}, and the
// environment trn-run gives the training step so that the bundled trainer finds its tiers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan_test_support.hpp"
#include "trn/plan/command_template.hpp"
#include "trn/plan/profile_keys.hpp"

namespace {

using plan_test::bundled;
using plan_test::error_of;
using testing::HasSubstr;
using testing::Not;
using testing::StartsWith;
using namespace trn::plan;

using Env = std::map<std::string, std::string>;

PlanRequest job(std::uint32_t id) {
  PlanRequest request = plan_test::on(2, 0);
  request.cluster.job_id = id;
  return request;
}

Profile user_profile(const std::string& command) {
  return parse_profile("command: " + command + "\nmicro_batch: 1\nglobal_batch: 2\nsteps: 4\n",
                       "<test>", "user");
}

TEST(CheckpointLocalDir, IsOneFolderPerRun) {
  Profile profile = bundled("bert_tiny");
  apply_set_option(profile, "checkpoint_local_dir=/scratch/trn-checkpoints");
  const Plan plan = make_plan(profile, job(7));
  EXPECT_EQ(plan.checkpoint_local_dir, "/scratch/trn-checkpoints/bert_tiny-7");
  EXPECT_EQ(to_json(plan).at("checkpoint_local_dir"), "/scratch/trn-checkpoints/bert_tiny-7");
  EXPECT_THAT(render_plan_text(plan),
              HasSubstr("local checkpoints /scratch/trn-checkpoints/bert_tiny-7 on every node\n"));
  EXPECT_EQ(render_template("{checkpoint_local_dir}/x", placeholder_values(plan, false)),
            "/scratch/trn-checkpoints/bert_tiny-7/x");

  // A run directory the user named (--resume DIR/, --run-dir .) gives its own name.
  PlanRequest named = job(8);
  named.run_dir = "/fsx/runs/mine/";
  EXPECT_EQ(make_plan(profile, named).checkpoint_local_dir, "/scratch/trn-checkpoints/mine");
  named.run_dir = "/fsx/runs/mine/.";
  EXPECT_EQ(make_plan(profile, named).checkpoint_local_dir, "/scratch/trn-checkpoints/mine");

  // "~/" is the user's home, as in data and output_root.
  apply_set_option(profile, "checkpoint_local_dir=~/local");
  PlanRequest at_home = job(9);
  at_home.home = "/home/alice";
  EXPECT_EQ(make_plan(profile, at_home).checkpoint_local_dir, "/home/alice/local/bert_tiny-9");
}

TEST(CheckpointLocalDir, UnsetMeansNoNodeLocalTier) {
  const Plan plan = make_plan(bundled("bert_tiny"), job(7));
  EXPECT_FALSE(plan.checkpoint_local_dir);
  EXPECT_TRUE(to_json(plan).at("checkpoint_local_dir").is_null());
  EXPECT_THAT(render_plan_text(plan), Not(HasSubstr("local checkpoints")));
  EXPECT_THAT(error_of([] { make_plan(user_profile("train {checkpoint_local_dir}"), job(7)); }),
              HasSubstr("{checkpoint_local_dir} has no value: the profile sets no "
                        "checkpoint_local_dir; set it in the profile"));
}

// A relative folder would be under the job's working directory on the shared file system
// (the message in a profile file: tests/profiles-broken/checkpoint-local-dir-relative.yaml).
TEST(CheckpointLocalDir, MustBeAbsoluteOrInTheHome) {
  Profile profile = bundled("bert_tiny");
  for (const std::string bad : {"", "scratch/ckpt", "./ckpt", "~ckpt"}) {
    EXPECT_THAT(error_of([&] { apply_set_option(profile, "checkpoint_local_dir=" + bad); }),
                StartsWith("--set checkpoint_local_dir=" + bad +
                           ": checkpoint_local_dir must be an absolute path or ~/path on the "
                           "nodes' own disk (e.g. /scratch/trn-checkpoints"))
        << bad;
  }
  EXPECT_EQ(profile.checkpoint_local_dir, "");  // as it was
}

TEST(TrainEnv, TellsTheTrainerItsCheckpointTiers) {
  Profile profile = bundled("bert_tiny");
  apply_set_option(profile, "checkpoint_uri=s3://bucket/runs");
  apply_set_option(profile, "checkpoint_local_dir=/scratch/ckpt");
  const Plan plan = make_plan(profile, job(7));
  EXPECT_EQ(plan.train_env, (Env{{"TRN_CHECKPOINT_LOCAL_DIR", "/scratch/ckpt/bert_tiny-7"},
                                 {"TRN_CHECKPOINT_URI", "s3://bucket/runs"}}));
  EXPECT_EQ(to_json(plan).at("train_env").at("TRN_CHECKPOINT_URI"), "s3://bucket/runs");
  EXPECT_THAT(render_plan_text(plan),
              HasSubstr("env               TRN_CHECKPOINT_URI=s3://bucket/runs (training step)\n"));
  // Not the profile's env, which every step gets and which keys the compile manifest.
  EXPECT_FALSE(plan.env.contains("TRN_CHECKPOINT_URI"));
  EXPECT_FALSE(compile_inputs(plan).at("env").contains("TRN_CHECKPOINT_URI"));

  EXPECT_EQ(make_plan(bundled("bert_tiny"), job(7)).train_env, Env{});
}

TEST(TrainEnv, TheProfilesOwnEnvWins) {
  Profile profile = bundled("bert_tiny");
  apply_set_option(profile, "checkpoint_uri=s3://bucket/runs");
  apply_set_option(profile, "checkpoint_local_dir=/scratch/ckpt");
  apply_set_option(profile, "env.TRN_CHECKPOINT_URI=s3://elsewhere/{profile}");
  const Plan plan = make_plan(profile, job(7));
  EXPECT_EQ(plan.env.at("TRN_CHECKPOINT_URI"), "s3://elsewhere/bert_tiny");
  EXPECT_EQ(plan.train_env, (Env{{"TRN_CHECKPOINT_LOCAL_DIR", "/scratch/ckpt/bert_tiny-7"}}));
}

// snapshot_every reaches the trainer as TRN_SNAPSHOT_EVERY (its --snapshot-every default), in
// the training step only; "auto" and whole numbers are accepted, nothing else.
TEST(TrainEnv, TellsTheTrainerHowOftenToSnapshot) {
  Profile profile = bundled("bert_tiny");
  apply_set_option(profile, "checkpoint_local_dir=/dev/shm/ckpt");
  apply_set_option(profile, "snapshot_every=1");
  EXPECT_EQ(make_plan(profile, job(7)).train_env,
            (Env{{"TRN_CHECKPOINT_LOCAL_DIR", "/dev/shm/ckpt/bert_tiny-7"},
                 {"TRN_SNAPSHOT_EVERY", "1"}}));
  apply_set_option(profile, "snapshot_every=auto");
  EXPECT_EQ(make_plan(profile, job(7)).train_env.at("TRN_SNAPSHOT_EVERY"), "auto");
  EXPECT_FALSE(make_plan(profile, job(7)).env.contains("TRN_SNAPSHOT_EVERY"));
  for (const std::string bad : {"", "-1", "often", "1.5", "Auto", "9999999999"}) {
    EXPECT_THAT(error_of([&] { apply_set_option(profile, "snapshot_every=" + bad); }),
                StartsWith("--set snapshot_every=" + bad +
                           ": snapshot_every must be auto or a whole number >= 0"))
        << bad;
  }
  EXPECT_EQ(profile.snapshot_every, "auto");  // as it was
  EXPECT_FALSE(make_plan(bundled("bert_tiny"), job(7)).train_env.contains("TRN_SNAPSHOT_EVERY"));
}

TEST(Resume, IsOneWhenTheJobContinuesARun) {
  const Profile profile = user_profile("train --resume {resume} --out {run_dir}");
  const plan_test::TempDir runs;
  PlanRequest request = job(7);
  request.run_dir = runs.path() / "user-7";  // not made yet: a new run
  const Plan fresh = make_plan(profile, request);
  EXPECT_FALSE(fresh.resume);
  EXPECT_EQ(plan_test::flag_value(fresh.command, "--resume"), "0");
  EXPECT_EQ(to_json(fresh).at("resume"), false);

  request.continues_run = true;  // --resume RUN_DIR, or Slurm requeued the job
  const Plan continued = make_plan(profile, request);
  EXPECT_TRUE(continued.resume);
  EXPECT_EQ(plan_test::flag_value(continued.command, "--resume"), "1");
  // The compile phase only traces graphs, and its manifest key stays the same.
  EXPECT_EQ(plan_test::flag_value(continued.compile_command, "--resume"), "0");
  EXPECT_EQ(compile_inputs(continued), compile_inputs(fresh));
  EXPECT_THAT(render_plan_text(continued),
              HasSubstr("resume            yes: this job continues the run in the run dir "
                        "({resume} is 1)\n"));
}

TEST(Resume, IsOneWhenTheRunDirectoryExists) {
  const plan_test::TempDir earlier;
  PlanRequest request = job(7);
  request.run_dir = earlier.path();
  EXPECT_TRUE(make_plan(user_profile("train {resume}"), request).resume);
}

// A script told whether it continues finds its checkpoints itself (the plan's text for a command
// that is not resumable: Plan.ResumableOnlyWhenTheCommandTakesACheckpointPlaceholder).
TEST(Resume, MakesTheCommandResumable) {
  EXPECT_TRUE(make_plan(user_profile("train --resume {resume}"), job(7)).resumable);
  EXPECT_FALSE(make_plan(user_profile("train --steps {steps}"), job(7)).resumable);
}

TEST(CompileInputs, IgnoreTheNodeLocalFolderOfEachRun) {
  Profile profile = user_profile("train --local {checkpoint_local_dir}");
  apply_set_option(profile, "checkpoint_local_dir=/scratch/ckpt");
  const auto first = compile_inputs(make_plan(profile, job(1)));
  EXPECT_EQ(first, compile_inputs(make_plan(profile, job(2))));
  EXPECT_THAT(first.at("compile_command").dump(), HasSubstr("\"{checkpoint_local_dir}\""));
}

}  // namespace
