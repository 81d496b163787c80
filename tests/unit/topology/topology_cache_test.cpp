#include "trn/topology/topology_cache.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "fixtures.hpp"
#include "temp_dir.hpp"
#include "trn/common/error.hpp"
#include "trn/topology/topology_json.hpp"

using namespace trn::topology;
using trn::test::discovered;
using trn::test::fixture;

TEST(TopologyJson, RoundTripsEveryFixture) {
  for (const char* name : {"trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge",
                           "inf2.48xlarge", "cpu-only"}) {
    const auto& original = discovered(name);
    const std::string text = topology_to_json(original);
    const NodeTopology back = topology_from_json(text, "test");
    EXPECT_EQ(topology_to_json(back), text) << name;
    EXPECT_EQ(back.devices.size(), original.devices.size());
    EXPECT_EQ(back.cores.size(), original.cores.size());
    EXPECT_EQ(back.cpus, original.cpus);
    EXPECT_EQ(back.instance_type, original.instance_type);
    if (!original.devices.empty()) {
      EXPECT_EQ(back.devices.back().pci, original.devices.back().pci);
      EXPECT_EQ(back.devices.back().efa_devices, original.devices.back().efa_devices);
      EXPECT_EQ(back.devices.back().local_cpus, original.devices.back().local_cpus);
    }
  }
}

TEST(TopologyJson, NonUtf8SysfsStringsDoNotThrow) {
  NodeTopology t = discovered("cpu-only");
  t.instance_type = "c5\xff\xfe";
  const NodeTopology back = topology_from_json(topology_to_json(t), "test");
  EXPECT_EQ(back.instance_type, "c5\xef\xbf\xbd\xef\xbf\xbd");  // U+FFFD twice
}

TEST(TopologyJson, RejectsOtherContentNamingTheFile) {
  const std::string good = topology_to_json(discovered("trn1.2xlarge"));
  std::string wrong_format = good;
  wrong_format.replace(wrong_format.find("\"format\": 1"), 11, "\"format\": 7");
  std::string bad_cpus = good;
  bad_cpus.replace(bad_cpus.find("\"cpus\": \"0-7\""), 13, "\"cpus\": \"x\"");
  // Numbers are whole: a fraction was read as its whole part, and get<int>() of 1e116 was
  // undefined behaviour (fuzz_neuron_ls).
  std::string fraction = good;
  fraction.replace(fraction.find("\"numa_node\": 0"), 14, "\"numa_node\": 0.5");
  std::string huge_format = good;
  huge_format.replace(huge_format.find("\"format\": 1"), 11, "\"format\": 1e116");
  for (const std::string& text : {std::string("{"), std::string("[]"), std::string("{}"),
                                  wrong_format, bad_cpus, fraction, huge_format}) {
    try {
      topology_from_json(text, "/run/trn-slurm/topology.json");
      FAIL() << text;
    } catch (const trn::Error& e) {
      EXPECT_NE(std::string(e.what()).find("/run/trn-slurm/topology.json"), std::string::npos)
          << e.what();
    }
  }
}

TEST(TopologyCache, DiscoversOnceThenReadsTheCache) {
  trn::test::TempDir dir;
  const auto cache = dir.path() / "run" / "trn-slurm" / "topology.json";
  DiscoveryOptions options;
  options.fsroot = fixture("trn1.32xlarge");
  const auto first = discover_cached(options, cache);
  EXPECT_FALSE(first.from_cache);
  EXPECT_NE(first.note.find("no readable topology cache"), std::string::npos) << first.note;
  ASSERT_TRUE(std::filesystem::exists(cache));
  EXPECT_EQ(std::filesystem::status(cache).permissions() & std::filesystem::perms::all,
            std::filesystem::perms(0644));
  const auto second = discover_cached(options, cache);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(topology_to_json(second.topology), topology_to_json(first.topology));
  // No temporary files left next to it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(cache.parent_path()), {}), 1);
}

TEST(TopologyCache, StaleOrForeignCacheIsRediscovered) {
  trn::test::TempDir dir;
  const auto cache = dir.path() / "topology.json";
  DiscoveryOptions options;
  options.fsroot = fixture("trn1.2xlarge");

  NodeTopology other_boot = discovered("trn1.2xlarge");
  other_boot.boot_id = "00000000-0000-0000-0000-000000000000";
  save_topology_cache(other_boot, cache);
  std::string why;
  EXPECT_FALSE(load_cached_topology(cache, options.fsroot, &why).has_value());
  EXPECT_NE(why.find("another boot"), std::string::npos) << why;
  auto result = discover_cached(options, cache);
  EXPECT_FALSE(result.from_cache);
  EXPECT_EQ(result.topology.boot_id, discovered("trn1.2xlarge").boot_id);

  save_topology_cache(discovered("cpu-only"), cache);
  EXPECT_FALSE(load_cached_topology(cache, options.fsroot, &why).has_value());
  EXPECT_NE(why.find("describes root"), std::string::npos) << why;

  std::ofstream(cache) << "{ garbage";
  EXPECT_FALSE(load_cached_topology(cache, options.fsroot, &why).has_value());
  EXPECT_NE(why.find("invalid JSON"), std::string::npos) << why;
  result = discover_cached(options, cache);
  EXPECT_FALSE(result.from_cache);
  EXPECT_TRUE(load_cached_topology(cache, options.fsroot).has_value());
}

TEST(TopologyCache, UnwritableCacheStillGivesTheTopology) {
  trn::test::TempDir dir;
  const auto blocker = dir.path() / "file";
  std::ofstream(blocker) << "x";
  DiscoveryOptions options;
  options.fsroot = fixture("cpu-only");
  const auto result = discover_cached(options, blocker / "topology.json");
  EXPECT_FALSE(result.from_cache);
  EXPECT_NE(result.note.find("not cached: cannot write"), std::string::npos) << result.note;
  EXPECT_EQ(result.topology.instance_type, "c5.2xlarge");
}

TEST(TopologyCache, RootWithoutBootIdIsDiscoveredButNotCached) {
  trn::test::TempDir dir;
  const auto root = dir.path() / "root";
  std::filesystem::copy(
      fixture("trn1.2xlarge"), root,
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  std::filesystem::remove(root / "proc/sys/kernel/random/boot_id");
  DiscoveryOptions options;
  options.fsroot = root;
  const NodeTopology plain = discover(options);
  EXPECT_TRUE(plain.boot_id.empty());
  EXPECT_EQ(plain.devices.size(), discovered("trn1.2xlarge").devices.size());

  const auto cache = dir.path() / "topology.json";
  const auto result = discover_cached(options, cache);
  EXPECT_FALSE(result.from_cache);
  EXPECT_EQ(result.topology.instance_type, "trn1.2xlarge");
  EXPECT_NE(result.note.find("not cached"), std::string::npos) << result.note;
  EXPECT_NE(result.note.find("boot_id"), std::string::npos) << result.note;
  EXPECT_FALSE(std::filesystem::exists(cache));
  // Once: the note says it in one place, not per reason.
  EXPECT_EQ(result.note.find("boot_id"), result.note.rfind("boot_id")) << result.note;
}
