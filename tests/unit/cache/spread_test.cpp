#include "trn/cache/spread.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "cache_tree.hpp"
#include "test_port.hpp"
#include "trn/cache/cache_stream.hpp"
#include "trn/cache/entry.hpp"
#include "trn/cache/scan.hpp"
#include "trn/common/error.hpp"
#include "trn/common/tcp.hpp"

namespace trn::cache {
namespace {

using test::entry_path;
using test::make_done;
using test::read_file;
using test::StringSink;
using test::TempDir;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SpreadTree, EachNodeHasOneParentAndAtMostFanoutChildren) {
  EXPECT_FALSE(spread_tree_position(0, 7, 2).parent);
  EXPECT_THAT(spread_tree_position(0, 7, 2).children, ElementsAre(1, 2));
  EXPECT_EQ(spread_tree_position(5, 7, 2).parent, 2u);
  EXPECT_THAT(spread_tree_position(2, 7, 2).children, ElementsAre(5, 6));
  EXPECT_THAT(spread_tree_position(3, 7, 2).children, IsEmpty());
  EXPECT_THAT(spread_tree_position(1, 6, 4).children, ElementsAre(5));
  EXPECT_THAT(spread_tree_position(0, 1, 2).children, IsEmpty());
  // Every node but the root is someone's child, once.
  for (const std::size_t fanout : {1u, 2u, 3u, 8u}) {
    std::vector<int> parents(100, 0);
    for (std::size_t node = 0; node < 100; ++node) {
      for (const auto child : spread_tree_position(node, 100, fanout).children) {
        parents[child]++;
        EXPECT_EQ(spread_tree_position(child, 100, fanout).parent, node);
      }
    }
    EXPECT_EQ(parents[0], 0);
    for (std::size_t node = 1; node < 100; ++node) EXPECT_EQ(parents[node], 1) << node;
  }
  EXPECT_THROW(spread_tree_position(0, 3, 0), Error);
}

struct Nodes {
  TempDir shared;
  std::vector<std::unique_ptr<TempDir>> locals;
  std::vector<std::string> hosts;
  explicit Nodes(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      locals.push_back(std::make_unique<TempDir>());
      hosts.push_back("127.0.0." + std::to_string(i + 1));
    }
  }
  // Runs the spread on nodes `running` (real TCP on 127.0.0.x), each in a thread of its own.
  std::vector<SpreadReport> spread_on(
      const std::vector<std::size_t>& running, unsigned port_offset,
      std::chrono::milliseconds connect_timeout = std::chrono::seconds(10),
      std::size_t fanout = 2) {
    std::vector<SpreadReport> reports(running.size());
    std::vector<std::thread> threads;
    const auto port = trn::test::test_port(port_offset);
    for (std::size_t i = 0; i < running.size(); ++i) {
      threads.emplace_back([&, i] {
        SpreadOptions options;
        options.hosts = hosts;
        options.self = running[i];
        options.port = port;
        options.fanout = fanout;
        options.shared_root = shared.path();
        options.local_root = locals[running[i]]->path() / "cache";
        options.connect_timeout = connect_timeout;
        options.idle_timeout = std::chrono::seconds(10);
        options.listen_on_own_host = true;
        reports[i] = spread(options);
      });
    }
    for (auto& thread : threads) thread.join();
    return reports;
  }
};

std::uintmax_t bytes_of_done_entries(const std::filesystem::path& root) {
  std::uintmax_t bytes = 0;
  for (const auto& entry : scan(root)) {
    if (entry.state == EntryState::kDone) bytes += entry.bytes;
  }
  return bytes;
}

TEST(Spread, ReadsTheSharedTierOnceAndEveryNodeEndsWithItsEntries) {
  Nodes nodes(6);
  make_done(nodes.shared.path(), "MODULE_1+aa", std::string(2'000'000, 'x'));
  make_done(nodes.shared.path(), "MODULE_2+aa", "small");
  test::make_entry(nodes.shared.path(), "MODULE_3+aa", {"model.hlo_module.pb", "model.log"});
  // Node 4 holds one entry already.
  make_done(nodes.locals[4]->path() / "cache", "MODULE_2+aa", "small");
  const auto total = bytes_of_done_entries(nodes.shared.path());

  const auto reports = nodes.spread_on({0, 1, 2, 3, 4, 5}, 0);
  for (std::size_t node = 0; node < 6; ++node) {
    const auto& report = reports[node];
    EXPECT_FALSE(report.fallback) << node << ": " << *report.fallback;
    EXPECT_THAT(report.children_lost, IsEmpty()) << node;
    const auto local = nodes.locals[node]->path() / "cache";
    for (const auto* module : {"MODULE_1+aa", "MODULE_2+aa"}) {
      EXPECT_EQ(read_file(entry_path(local, module) / "model.neff"),
                read_file(entry_path(nodes.shared.path(), module) / "model.neff"))
          << node << " " << module;
    }
    EXPECT_FALSE(std::filesystem::exists(entry_path(local, "MODULE_3+aa"))) << node;
    // Only the entries remain: the inbox is gone.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(local),
                            std::filesystem::directory_iterator()),
              1)
        << node;
    EXPECT_EQ(report.shared_tier_bytes, node == 0 ? total : 0u) << node;
    EXPECT_EQ(report.received_bytes, node == 0 ? 0u : total) << node;
    EXPECT_EQ(report.local.copied, node == 4 ? 1u : 2u) << node;
    EXPECT_EQ(report.local.present, node == 4 ? 1u : 0u) << node;
  }
  EXPECT_FALSE(reports[0].parent);
  EXPECT_THAT(reports[0].children, ElementsAre("127.0.0.2", "127.0.0.3"));
  EXPECT_EQ(reports[4].parent, "127.0.0.2");
  EXPECT_THAT(reports[2].children, ElementsAre("127.0.0.6"));
}

// Node 1 never starts: its children find no parent and read the shared tier themselves; the
// root reports it lost; everyone who runs still ends with every entry.
TEST(Spread, ANodeWithoutItsParentReadsTheSharedTierItself) {
  Nodes nodes(5);
  make_done(nodes.shared.path(), "MODULE_1+aa", std::string(100'000, 'x'));
  const auto total = bytes_of_done_entries(nodes.shared.path());
  const auto reports = nodes.spread_on({0, 2, 3, 4}, 1, std::chrono::milliseconds(1500));
  EXPECT_THAT(reports[0].children, ElementsAre("127.0.0.3"));
  EXPECT_THAT(reports[0].children_lost, ElementsAre("127.0.0.2"));
  EXPECT_FALSE(reports[1].fallback);      // node 2, served by the root
  for (const std::size_t i : {2u, 3u}) {  // nodes 3 and 4, children of node 1
    ASSERT_TRUE(reports[i].fallback);
    EXPECT_THAT(*reports[i].fallback, ::testing::HasSubstr("cannot reach 127.0.0.2"));
    EXPECT_EQ(reports[i].shared_tier_bytes, total);
  }
  for (const std::size_t node : {0u, 2u, 3u, 4u}) {
    EXPECT_EQ(read_entry(entry_path(nodes.locals[node]->path() / "cache", "MODULE_1+aa"))->state,
              EntryState::kDone)
        << node;
  }
}

// A chain (fanout 1) whose node 0, played by the test, dies half-way through the stream: node 1
// keeps what arrived whole, pulls the rest from the shared tier, and its child, node 2, ends
// complete too.
TEST(Spread, ABrokenStreamEndsAsAPullFromTheSharedTier) {
  Nodes nodes(3);
  make_done(nodes.shared.path(), "MODULE_1+aa", std::string(300'000, 'a'));
  make_done(nodes.shared.path(), "MODULE_2+aa", std::string(300'000, 'b'));
  StringSink whole;
  write_cache_stream(nodes.shared.path(), std::nullopt, whole);
  const auto port_offset = 3u;
  std::string why;
  auto listener = tcp::listen_on("127.0.0.1", trn::test::test_port(port_offset), why);
  ASSERT_TRUE(listener.valid()) << why;
  std::thread dying_root([&] {
    const auto deadline = tcp::Clock::now() + std::chrono::seconds(10);
    auto child = tcp::accept_before(listener.get(), deadline);
    char index[4];
    tcp::receive_all(child.get(), index, 4, deadline);
    // The first entry and half of the second.
    tcp::send_all(child.get(), whole.bytes.data(), 450'000, deadline);
  });
  const auto reports = nodes.spread_on({1, 2}, port_offset, std::chrono::seconds(10), 1);
  dying_root.join();
  for (const std::size_t i : {0u, 1u}) {
    ASSERT_TRUE(reports[i].fallback) << i;
    EXPECT_THAT(*reports[i].fallback, ::testing::HasSubstr("the stream ended")) << i;
    EXPECT_EQ(reports[i].local.copied, 2u) << i;
    EXPECT_EQ(reports[i].local.present, 0u) << i;
    for (const auto* module : {"MODULE_1+aa", "MODULE_2+aa"}) {
      EXPECT_EQ(read_file(entry_path(nodes.locals[i + 1]->path() / "cache", module) / "model.neff"),
                read_file(entry_path(nodes.shared.path(), module) / "model.neff"))
          << i << " " << module;
    }
  }
  // Node 1 got the first entry through the tree and read only the second from the shared tier.
  EXPECT_EQ(reports[0].shared_tier_bytes,
            read_entry(entry_path(nodes.shared.path(), "MODULE_2+aa"))->bytes);
}

TEST(Spread, OneNodeIsAPull) {
  Nodes nodes(1);
  make_done(nodes.shared.path(), "MODULE_1+aa");
  // The inbox of a spread that was killed is removed; one in use (pid 1 always runs) is not.
  const auto local = nodes.locals[0]->path() / "cache";
  const auto killed =
      local / (".trn-tmp." + std::to_string(test::dead_pid()) + ".0." + test::this_host());
  const auto in_use = local / (".trn-tmp.1.0." + test::this_host());
  test::write_file(killed / "neuronxcc-x" / "MODULE_9+aa" / "model.neff", "half");
  test::write_file(in_use / "neuronxcc-x" / "MODULE_9+aa" / "model.neff", "half");
  const auto reports = nodes.spread_on({0}, 2);
  EXPECT_EQ(reports[0].local.copied, 1u);
  EXPECT_EQ(reports[0].shared_tier_bytes, bytes_of_done_entries(nodes.shared.path()));
  EXPECT_EQ(to_json(reports[0])["copied"]["entries"], 1);
  EXPECT_TRUE(to_json(reports[0])["spread"]["parent"].is_null());
  EXPECT_FALSE(std::filesystem::exists(killed));
  EXPECT_TRUE(std::filesystem::exists(in_use));
}

}  // namespace
}  // namespace trn::cache
