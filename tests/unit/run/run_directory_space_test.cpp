// Room on the run directory's file system for the run's next checkpoint.
#include "trn/run/run_directory_space.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace {

using testing::HasSubstr;
using trn::run::kRunDirectoryFloorBytes;
using trn::run::measure_run_directory_space;
using trn::run::run_directory_full;
using trn::run::RunDirectorySpace;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

TEST(RunDirectorySpace, MeasuresTheNewestCommittedCheckpointOnly) {
  trn::test::TempDir dir;
  dir.write("ckpt_4.json", std::string(10, 'm'));
  dir.write("ckpt_4.pt", std::string(100, 'a'));
  dir.write("ckpt_4.shard1.pt", std::string(100, 'b'));
  dir.write("ckpt_8.json", std::string(20, 'm'));
  dir.write("ckpt_8.pt", std::string(300, 'a'));
  dir.write("ckpt_8.shard1.pt", std::string(300, 'b'));
  dir.write("ckpt_80.pt", std::string(5000, 'x'));  // another step's files, uncommitted
  dir.write("ckpt_12.pt", std::string(7000, 'y'));  // a save cut off before its manifest
  dir.write("metrics.jsonl", std::string(900, 'r'));
  const auto space = measure_run_directory_space(dir.path());
  ASSERT_TRUE(space.has_value());
  EXPECT_EQ(space->checkpoint_step, 8);
  EXPECT_EQ(space->checkpoint_bytes, 620U);
  EXPECT_GT(space->available_bytes, 0U);
}

TEST(RunDirectorySpace, ANewRunsFolderIsMeasuredOnItsNearestExistingParent) {
  trn::test::TempDir dir;
  const auto space = measure_run_directory_space(dir.path() / "runs" / "bert_tiny-7");
  ASSERT_TRUE(space.has_value());
  EXPECT_EQ(space->checkpoint_step, -1);
  EXPECT_EQ(space->checkpoint_bytes, 0U);
  EXPECT_GT(space->available_bytes, 0U);
  EXPECT_EQ(run_directory_full(dir.path() / "runs", *space), "");
  EXPECT_EQ(run_directory_full(dir.path() / "runs"), "");  // measured there and then
}

TEST(RunDirectorySpace, RoomForOneMoreCheckpointIsEnough) {
  const RunDirectorySpace space{
      .available_bytes = 14 * kMiB, .checkpoint_bytes = 14 * kMiB, .checkpoint_step = 4};
  EXPECT_EQ(run_directory_full("/fsx/runs/bert-7", space), "");
}

TEST(RunDirectorySpace, LessThanOneCheckpointIsFullNamingTheFolderTheRoomAndTheFix) {
  const RunDirectorySpace space{
      .available_bytes = kMiB / 2, .checkpoint_bytes = 14 * kMiB, .checkpoint_step = 4};
  const auto line = run_directory_full("/fsx/runs/bert-7", space);
  EXPECT_THAT(line, HasSubstr("run directory /fsx/runs/bert-7: its file system has 0.5 MiB free"));
  EXPECT_THAT(line, HasSubstr("checkpoint 4 takes 14.0 MiB"));
  EXPECT_THAT(line, HasSubstr("free space on it"));
  EXPECT_THAT(line, HasSubstr("--resume /fsx/runs/bert-7"));
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(RunDirectorySpace, BeforeTheFirstCheckpointTheFloorDecides) {
  RunDirectorySpace space{.available_bytes = kRunDirectoryFloorBytes};
  EXPECT_EQ(run_directory_full("/fsx/runs/new", space), "");
  space.available_bytes = kRunDirectoryFloorBytes - 1;
  EXPECT_THAT(run_directory_full("/fsx/runs/new", space), HasSubstr("a run needs for its logs"));
}

}  // namespace
