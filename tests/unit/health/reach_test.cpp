#include "trn/health/reach.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "test_port.hpp"

namespace trn::health {
namespace {

using trn::test::test_port;

// Runs nodes `running` of `peers` (real TCP on 127.0.0.x), each in its own thread.
std::vector<ReachOutcome> run_nodes(const std::vector<ReachPeer>& peers,
                                    const std::vector<std::size_t>& running, std::uint16_t port,
                                    std::chrono::milliseconds deadline) {
  std::vector<ReachOutcome> outcomes(running.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < running.size(); ++i) {
    threads.emplace_back([&, i] {
      ReachOptions options;
      options.peers = peers;
      options.self = running[i];
      options.port = port;
      options.deadline = deadline;
      options.listen_on_own_host = true;
      outcomes[i] = check_reach(options);
    });
  }
  for (auto& thread : threads) thread.join();
  return outcomes;
}

const std::vector<ReachPeer> kPeers = {
    {"n1", "127.0.0.1"}, {"n2", "127.0.0.2"}, {"n3", "127.0.0.3"}, {"n4", "127.0.0.4"}};

TEST(Reach, EveryNodeReachesEveryOther) {
  const auto outcomes = run_nodes(kPeers, {0, 1, 2, 3}, test_port(0), std::chrono::seconds(5));
  for (const auto& outcome : outcomes) {
    EXPECT_EQ(outcome.result.status, CheckStatus::kOk) << outcome.result.evidence;
    EXPECT_THAT(outcome.result.evidence, testing::HasSubstr("3 peers reached"));
    EXPECT_TRUE(outcome.unreached.empty());
  }
}

// n3 never answers (its task is not there): the others name it within the deadline, and the
// verdict across reports blames n3 alone.
TEST(Reach, ANodeThatNeverAnswersIsNamedByTheOthers) {
  const auto start = std::chrono::steady_clock::now();
  const auto outcomes = run_nodes(kPeers, {0, 1, 3}, test_port(1), std::chrono::milliseconds(1500));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  std::map<std::string, std::vector<std::string>> reports;
  for (std::size_t i : {0u, 1u, 2u}) {
    EXPECT_EQ(outcomes[i].result.status, CheckStatus::kFailed);
    EXPECT_THAT(outcomes[i].result.evidence, testing::HasSubstr("cannot reach n3"));
    EXPECT_EQ(outcomes[i].unreached, std::vector<std::string>{"n3"});
  }
  reports["n1"] = outcomes[0].unreached;
  reports["n2"] = outcomes[1].unreached;
  reports["n4"] = outcomes[2].unreached;
  EXPECT_EQ(unreachable_nodes({"n1", "n2", "n3", "n4"}, reports), std::vector<std::string>{"n3"});
}

TEST(Reach, OneNodeHasNothingToReachAndABusyPortIsAWarning) {
  ReachOptions alone;
  alone.peers = {{"n1", "127.0.0.1"}};
  EXPECT_EQ(check_reach(alone).result.status, CheckStatus::kSkipped);

  const auto port = test_port(2);
  ReachOptions first;
  first.peers = {{"n1", "127.0.0.1"}, {"n2", "127.0.0.2"}};
  first.port = port;
  first.deadline = std::chrono::milliseconds(800);
  first.listen_on_own_host = true;
  std::thread holder([&] { check_reach(first); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto second = check_reach(first);  // same address and port while the first listens
  holder.join();
  EXPECT_EQ(second.result.status, CheckStatus::kWarning);
  EXPECT_THAT(second.result.evidence, testing::HasSubstr("cannot listen on port"));
}

TEST(ReachVerdict, BlamesANodeOnlyWhenMostOthersCannotReachIt) {
  const std::vector<std::string> all = {"a", "b", "c"};
  EXPECT_EQ(unreachable_nodes(all, {{"a", {"c"}}, {"b", {"c"}}, {"c", {"a", "b"}}}),
            std::vector<std::string>{"c"});
  // One broken link: nobody has a majority against it.
  EXPECT_TRUE(unreachable_nodes(all, {{"a", {"b"}}, {"b", {"a"}}, {"c", {}}}).empty());
  // Two nodes that cannot reach each other: which one is at fault is unknown.
  EXPECT_TRUE(unreachable_nodes({"a", "b"}, {{"a", {"b"}}, {"b", {"a"}}}).empty());
  // A node without a report is judged by the others.
  EXPECT_EQ(unreachable_nodes(all, {{"a", {"c"}}, {"b", {"c"}}}), std::vector<std::string>{"c"});
}

}  // namespace
}  // namespace trn::health
