#include "trn/run/watchdog.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using trn::run::Heartbeat;
using trn::run::Watchdog;
using trn::run::WatchdogSettings;
using trn::run::WatchEvent;

Heartbeat beat(unsigned rank, const std::string& node, long step, const std::string& phase) {
  Heartbeat b;
  b.rank = rank;
  b.node = node;
  b.step = step;
  b.phase = phase;
  return b;
}

WatchdogSettings settings(double floor) {
  WatchdogSettings s;
  s.hang_floor_s = floor;
  return s;
}

// Four ranks on two nodes that complete a step every second until step `steps`.
void steady_steps(Watchdog& dog, long steps) {
  for (long step = 1; step <= steps; ++step) {
    dog.observe({beat(0, "a", step, "done"), beat(1, "a", step, "done"), beat(2, "b", step, "done"),
                 beat(3, "b", step, "done")},
                static_cast<double>(step));
  }
}

TEST(Watchdog, ARankThatFailedIsSeenAtOnce) {
  Watchdog dog(settings(60));
  auto failed = beat(1, "a", 0, "failed");
  failed.error = "RuntimeError: Connection closed by peer [10.0.0.2]:2767";
  dog.observe({beat(0, "a", 0, "compute"), failed}, 1.0);
  const auto verdict = dog.verdict(1.0);
  EXPECT_EQ(verdict.event, WatchEvent::kFailed);
  EXPECT_EQ(verdict.failed_ranks, std::vector<unsigned>{1});
  EXPECT_EQ(verdict.first_error, failed.error);
}

TEST(Watchdog, TheDeadlineIsFiveMedianStepsWithAFloor) {
  Watchdog dog(settings(3));
  steady_steps(dog, 6);
  EXPECT_DOUBLE_EQ(dog.median_step_s(), 1.0);
  EXPECT_EQ(dog.verdict(6.0 + 4.9).event, WatchEvent::kNone);  // within 5 x 1 s
  EXPECT_EQ(dog.verdict(6.0 + 5.1).event, WatchEvent::kHang);
  Watchdog floored(settings(30));
  steady_steps(floored, 6);
  EXPECT_EQ(floored.verdict(6.0 + 20).event, WatchEvent::kNone);
  EXPECT_EQ(floored.verdict(6.0 + 31).event, WatchEvent::kHang);
}

TEST(Watchdog, NotArmedBeforeEveryRankCompletedAStep) {
  Watchdog dog(settings(1));
  dog.observe({beat(0, "a", 0, "compute"), beat(1, "b", 0, "compute")}, 0.0);
  EXPECT_EQ(dog.verdict(1000).event, WatchEvent::kNone);  // start-up and compilation
}

TEST(Watchdog, AHangNamesTheRankThatNeverJoinedTheAllReduceNotTheOnesWaiting) {
  Watchdog dog(settings(3));
  steady_steps(dog, 6);
  // Step 7: ranks 0, 1 and 3 wait in its all-reduce; rank 2 (node b) stopped computing.
  dog.observe({beat(0, "a", 6, "allreduce"), beat(1, "a", 6, "allreduce"),
               beat(2, "b", 6, "compute"), beat(3, "b", 6, "allreduce")},
              7.0);
  const auto verdict = dog.verdict(20.0);
  ASSERT_EQ(verdict.event, WatchEvent::kHang);
  EXPECT_EQ(verdict.stuck_step, 6);
  EXPECT_EQ(verdict.stuck_ranks, std::vector<unsigned>{2});
  EXPECT_EQ(verdict.stuck_nodes, std::vector<std::string>{"b"});
  EXPECT_GT(verdict.stalled_s, verdict.deadline_s);
}

TEST(Watchdog, RanksBehindTheOthersAreTheStuckOnes) {
  Watchdog dog(settings(3));
  steady_steps(dog, 6);
  dog.observe({beat(0, "a", 7, "compute"), beat(1, "a", 6, "allreduce"), beat(2, "b", 7, "compute"),
               beat(3, "b", 7, "compute")},
              7.0);
  EXPECT_EQ(dog.verdict(20.0).stuck_ranks, std::vector<unsigned>{1});
}

TEST(Watchdog, EveryRankStoppedAlikeNamesNobody) {
  Watchdog dog(settings(3));
  steady_steps(dog, 6);
  dog.observe({beat(0, "a", 6, "compute"), beat(1, "a", 6, "compute"), beat(2, "b", 6, "compute"),
               beat(3, "b", 6, "compute")},
              7.0);
  const auto verdict = dog.verdict(20.0);
  EXPECT_EQ(verdict.event, WatchEvent::kHang);
  EXPECT_TRUE(verdict.stuck_ranks.empty());
}

TEST(Watchdog, RanksThatAllEndedAreNoHang) {
  Watchdog dog(settings(3));
  steady_steps(dog, 6);
  dog.observe({beat(0, "a", 6, "exited"), beat(1, "a", 6, "exited"), beat(2, "b", 6, "exited"),
               beat(3, "b", 6, "exited")},
              7.0);
  EXPECT_EQ(dog.verdict(100.0).event, WatchEvent::kNone);
}

// After the last step rank 0 writes the final checkpoint and the report while the others have
// exited: a spare-recovery job with --hang-timeout 4 once called that a hang under load.
TEST(Watchdog, TheRunsEndIsNoHangWithinTheFinishFloor) {
  auto finishing = settings(3);
  finishing.last_step = 6;
  Watchdog dog(finishing);
  steady_steps(dog, 6);
  dog.observe({beat(0, "a", 6, "done"), beat(1, "a", 6, "exited"), beat(2, "b", 6, "exited"),
               beat(3, "b", 6, "exited")},
              7.0);
  EXPECT_EQ(dog.verdict(60.0).event, WatchEvent::kNone);
  EXPECT_EQ(dog.verdict(700.0).event, WatchEvent::kHang);  // a final save hung for good
  // Before the last step the hang deadline stands.
  Watchdog early(finishing);
  steady_steps(early, 5);
  EXPECT_EQ(early.verdict(60.0).event, WatchEvent::kHang);
}

TEST(Watchdog, ACheckpointWriteSlowerThanTheHangDeadlineIsNoHang) {
  Watchdog dog(settings(3));
  steady_steps(dog, 4);
  // Rank 0 writes checkpoint 4 in the step (a synchronous save, or waiting for the previous one);
  // the others wait for it in the next step's all-reduce.
  dog.observe({beat(0, "a", 4, "checkpoint"), beat(1, "a", 4, "allreduce"),
               beat(2, "b", 4, "allreduce"), beat(3, "b", 4, "allreduce")},
              5.0);
  EXPECT_EQ(dog.verdict(60.0).event, WatchEvent::kNone);   // 20 times the hang deadline
  EXPECT_EQ(dog.verdict(700.0).event, WatchEvent::kHang);  // a write hung for good
  // Without the checkpoint phase the same silence is a hang naming rank 0.
  Watchdog silent(settings(3));
  steady_steps(silent, 4);
  silent.observe({beat(0, "a", 4, "done"), beat(1, "a", 4, "allreduce"),
                  beat(2, "b", 4, "allreduce"), beat(3, "b", 4, "allreduce")},
                 5.0);
  EXPECT_EQ(silent.verdict(60.0).event, WatchEvent::kHang);
}

// The write ends: the hang deadline counts from its end, not from the step before it. A poll that
// catches the rank back in its next step's compute, moments after a 26 s save, is no hang
// (slow_checkpoint.sh saw one in 2 of 5 runs on the local cluster).
TEST(Watchdog, TheHangDeadlineCountsFromTheEndOfACheckpointWrite) {
  Watchdog dog(settings(3));  // deadline: max(3 s, 5 x the 1 s median step) = 5 s
  steady_steps(dog, 4);
  dog.observe({beat(0, "a", 4, "checkpoint"), beat(1, "a", 4, "allreduce"),
               beat(2, "b", 4, "allreduce"), beat(3, "b", 4, "allreduce")},
              4.5);
  dog.observe({beat(0, "a", 4, "compute"), beat(1, "a", 4, "allreduce"),
               beat(2, "b", 4, "allreduce"), beat(3, "b", 4, "allreduce")},
              30.0);
  EXPECT_EQ(dog.verdict(31.0).event, WatchEvent::kNone);
  EXPECT_EQ(dog.verdict(34.9).event, WatchEvent::kNone);
  const auto stuck = dog.verdict(35.5);  // silent 5.5 s after the write: a hang again
  EXPECT_EQ(stuck.event, WatchEvent::kHang);
  EXPECT_NEAR(stuck.stalled_s, 5.5, 1e-9);
}

// A resumed step: the ranks say they started from checkpoint 12, and by the watchdog's first
// read one had already completed step 13 (straggler_replaced.sh once saw results.json say 13).
TEST(Watchdog, TheStartStepIsTheRanksOwnNotTheStepsDoneAtTheFirstRead) {
  auto two = settings(60);
  two.ranks = 2;
  Watchdog dog(two);
  auto first = beat(0, "a", 13, "done");
  auto second = beat(1, "b", 13, "compute");
  EXPECT_FALSE(dog.start_step());
  first.start_step = 12;
  dog.observe({first}, 1.0);
  EXPECT_FALSE(dog.start_step());  // rank 1 not heard from yet
  second.start_step = 12;
  dog.observe({second}, 1.0);
  EXPECT_TRUE(dog.started_up());
  EXPECT_EQ(dog.start_step(), 12);
  EXPECT_EQ(dog.steps_done(), 13);
}

// Node c computes `slow` times as long as a and b in every window.
std::vector<trn::run::Straggler> windows_with(double slow, long windows) {
  Watchdog dog(settings(60));
  std::vector<trn::run::Straggler> named;
  for (long w = 1; w <= windows; ++w) {
    std::vector<Heartbeat> beats;
    for (const auto& [rank, node, seconds] : std::vector<std::tuple<unsigned, std::string, double>>{
             {0, "a", 1.0}, {1, "b", 1.02}, {2, "c", slow}, {3, "c", 1.0}}) {
      auto b = beat(rank, node, w * 10, "done");
      b.window = w;
      b.window_compute_s = seconds;
      beats.push_back(b);
    }
    dog.observe(beats, static_cast<double>(w));
    for (auto& s : dog.take_new_stragglers()) named.push_back(s);
  }
  return named;
}

TEST(Watchdog, AStragglerIsNamedAfterThreeWindowsAboveTheMedianAndOnlyOnce) {
  const auto named = windows_with(1.3, 6);
  ASSERT_EQ(named.size(), 1U);
  EXPECT_EQ(named[0].node, "c");
  EXPECT_EQ(named[0].window, 3);
  EXPECT_NEAR(named[0].ratio, 1.3 / 1.02, 1e-9);
  EXPECT_TRUE(windows_with(1.1, 6).empty());  // under 1.15 x the median
  EXPECT_TRUE(windows_with(1.3, 2).empty());  // two windows are not three
}

TEST(Watchdog, ARestartNotPastItsStartUpInTimeIsHungNamingTheRanksNeverHeardFrom) {
  WatchdogSettings limited = settings(60);
  limited.startup_limit_s = 20;
  limited.ranks = 2;
  Watchdog dog(limited);
  // Rank 0 waits in the rendezvous for rank 1, whose node died as the step started.
  dog.observe({beat(0, "a", 6, "start")}, 1.0);
  EXPECT_EQ(dog.verdict(19.0).event, WatchEvent::kNone);
  const auto verdict = dog.verdict(21.0);
  EXPECT_EQ(verdict.event, WatchEvent::kHang);
  EXPECT_TRUE(verdict.in_startup);
  EXPECT_EQ(verdict.stuck_ranks, std::vector<unsigned>{1});
  EXPECT_TRUE(verdict.stuck_nodes.empty());  // a rank never heard from has no node to name
  EXPECT_DOUBLE_EQ(verdict.deadline_s, 20.0);
}

TEST(Watchdog, AStartUpWithinItsLimitOrWithoutOneIsNoHang) {
  WatchdogSettings limited = settings(60);
  limited.startup_limit_s = 20;
  limited.ranks = 2;
  Watchdog dog(limited);
  dog.observe({beat(0, "a", 6, "done"), beat(1, "b", 6, "done")}, 5.0);  // both resumed at 6
  EXPECT_EQ(dog.verdict(25.0).event, WatchEvent::kNone);  // past start-up: the step deadline rules
  Watchdog unlimited(settings(60));  // a first start may compile for as long as it takes
  unlimited.observe({beat(0, "a", 0, "start")}, 1.0);
  EXPECT_EQ(unlimited.verdict(1000.0).event, WatchEvent::kNone);
}

TEST(Watchdog, StartedUpOnceEveryRankHasABeatPastStart) {
  WatchdogSettings two = settings(60);
  two.ranks = 2;
  Watchdog dog(two);
  EXPECT_FALSE(dog.started_up());  // nothing heard yet
  dog.observe({beat(0, "a", 6, "done")}, 1.0);
  EXPECT_FALSE(dog.started_up());  // rank 1 not heard from
  dog.observe({beat(0, "a", 6, "done"), beat(1, "b", 0, "start")}, 2.0);
  EXPECT_FALSE(dog.started_up());  // rank 1 still starting
  dog.observe({beat(0, "a", 6, "done"), beat(1, "b", 6, "done")}, 3.0);
  EXPECT_TRUE(dog.started_up());
  EXPECT_EQ(dog.steps_done(), 6);  // the step both resumed from
}

}  // namespace
