#include <gtest/gtest.h>
#include <stdlib.h>

#include <set>

#include "fixtures.hpp"
#include "temp_dir.hpp"
#include "trn/common/error.hpp"
#include "trn/topology/discover.hpp"

using trn::test::discovered;
using trn::test::fixture;
using trn::topology::NodeTopology;

namespace {

std::set<unsigned> devices_on(const NodeTopology& t, int numa) {
  std::set<unsigned> out;
  for (const auto& d : t.devices) {
    if (d.numa_node == numa) out.insert(d.index);
  }
  return out;
}

std::string numa_cpus(const NodeTopology& t, unsigned node) {
  return t.numa_node(node) ? t.numa_node(node)->cpus.to_string() : "missing";
}

}  // namespace

TEST(Discovery, Trn1_32xlargeFollowsTheDocumentedLayout) {
  const auto& t = discovered("trn1.32xlarge");
  EXPECT_EQ(t.instance_type, "trn1.32xlarge");
  EXPECT_EQ(t.kernel_release, "5.10.217-205.860.amzn2.x86_64");
  EXPECT_EQ(t.pci_map_source, "documented map for trn1.32xlarge");
  ASSERT_EQ(t.devices.size(), 16u);
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(t.devices[i].index, i);
    EXPECT_EQ(t.devices[i].physical_cores, 2u);
    EXPECT_EQ(t.devices[i].core_count_source, "sysfs");
    EXPECT_EQ(t.devices[i].device_name, "Trainium1");
    EXPECT_EQ(t.devices[i].family, "Trn1");
    EXPECT_EQ(t.devices[i].arch_type, "NDv2");
    EXPECT_EQ(t.devices[i].pci_device_id, 0x7164u);
  }
  // Neuron indices are not in PCI order: the map, not sorting, gives these.
  EXPECT_EQ(t.devices[0].pci.to_string(), "0000:10:1c.0");
  EXPECT_EQ(t.devices[2].pci.to_string(), "0000:a0:1c.0");
  EXPECT_EQ(t.devices[13].pci.to_string(), "0000:10:1b.0");
  EXPECT_EQ(t.devices[15].pci.to_string(), "0000:a0:1b.0");
  EXPECT_EQ(devices_on(t, 0), (std::set<unsigned>{0, 1, 4, 5, 8, 9, 12, 13}));
  EXPECT_EQ(devices_on(t, 1), (std::set<unsigned>{2, 3, 6, 7, 10, 11, 14, 15}));
  EXPECT_EQ(t.devices[0].local_cpus.to_string(), "0-31,64-95");
  EXPECT_EQ(t.devices[0].connected_devices, (std::vector<unsigned>{12, 3, 4, 1}));

  ASSERT_EQ(t.numa_nodes.size(), 2u);
  EXPECT_EQ(numa_cpus(t, 0), "0-31,64-95");
  EXPECT_EQ(numa_cpus(t, 1), "32-63,96-127");
  EXPECT_EQ(t.cpus.to_string(), "0-127");
  ASSERT_EQ(t.cores.size(), 64u);
  for (unsigned k = 0; k < 64; ++k) {
    EXPECT_EQ(t.cores[k].cpus.to_string(), std::to_string(k) + "," + std::to_string(k + 64));
    EXPECT_EQ(t.cores[k].numa_node, k < 32 ? 0 : 1);
  }

  // 8 EFA, each serving two devices on its NUMA node.
  ASSERT_EQ(t.efa_devices.size(), 8u);
  for (const auto& efa : t.efa_devices) EXPECT_EQ(efa.pci_device_id, 0xefa1u);
  EXPECT_EQ(t.devices[0].efa_devices, (std::vector<std::string>{"rdmap16s26"}));  // 10:1a.0
  EXPECT_EQ(t.devices[1].efa_devices, (std::vector<std::string>{"rdmap16s26"}));
  EXPECT_EQ(t.devices[12].efa_devices, (std::vector<std::string>{"rdmap16s25"}));  // 10:19.0
  EXPECT_EQ(t.devices[13].efa_devices, (std::vector<std::string>{"rdmap16s25"}));
  for (const auto& device : t.devices) {
    for (const auto& efa : t.efa_devices) {
      if (efa.name == device.efa_devices.at(0)) {
        EXPECT_EQ(efa.numa_node, device.numa_node);
      }
    }
  }
}

TEST(Discovery, Trn1n_32xlargeHasOneEfaPerDevice) {
  const auto& t = discovered("trn1n.32xlarge");
  ASSERT_EQ(t.devices.size(), 16u);
  ASSERT_EQ(t.efa_devices.size(), 16u);
  std::set<std::string> used;
  for (const auto& device : t.devices) {
    ASSERT_EQ(device.efa_devices.size(), 1u) << device.index;
    used.insert(device.efa_devices[0]);
  }
  EXPECT_EQ(used.size(), 16u);
  EXPECT_EQ(t.devices[0].efa_devices[0], "rdmap16s23");  // 10:17.0
  EXPECT_EQ(t.devices[1].efa_devices[0], "rdmap16s26");  // 10:1a.0
  EXPECT_EQ(devices_on(t, 0), (std::set<unsigned>{0, 1, 4, 5, 8, 9, 12, 13}));
}

TEST(Discovery, Trn2_48xlargeFollowsTheDocumentedLayout) {
  const auto& t = discovered("trn2.48xlarge");
  ASSERT_EQ(t.devices.size(), 16u);
  EXPECT_TRUE(t.offers_logical_nc_config());
  EXPECT_FALSE(t.neuron_ls_lnc.has_value());
  for (const auto& d : t.devices) {
    EXPECT_EQ(d.physical_cores, 8u);
    EXPECT_EQ(d.pci_device_id, 0x7364u);
  }
  EXPECT_EQ(devices_on(t, 0), (std::set<unsigned>{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(devices_on(t, 1), (std::set<unsigned>{0, 1, 2, 3, 12, 13, 14, 15}));
  EXPECT_EQ(t.devices[0].pci.to_string(), "0000:cc:00.0");
  EXPECT_EQ(t.devices[5].pci.to_string(), "0000:58:00.0");
  EXPECT_EQ(numa_cpus(t, 0), "0-47,96-143");
  EXPECT_EQ(numa_cpus(t, 1), "48-95,144-191");
  ASSERT_EQ(t.cores.size(), 96u);
  EXPECT_EQ(t.cores[50].cpus.to_string(), "50,146");
  ASSERT_EQ(t.efa_devices.size(), 16u);
  EXPECT_EQ(t.devices[0].efa_devices, (std::vector<std::string>{"rdmap201s0"}));  // c9:00.0
}

TEST(Discovery, Trn2RecordedNeuronLsGivesTheMapAndTheLogicalCoreConfig) {
  for (unsigned lnc : {1u, 2u}) {
    trn::topology::DiscoveryOptions options;
    options.fsroot = fixture("trn2.48xlarge");
    options.neuron_ls = trn::topology::read_neuron_ls_file(
        fixture("trn2.48xlarge") / ("neuron-ls-lnc" + std::to_string(lnc) + ".json"));
    const auto t = trn::topology::discover(options);
    EXPECT_EQ(t.neuron_ls_lnc, lnc);
    EXPECT_NE(t.pci_map_source.find("neuron-ls -j"), std::string::npos) << t.pci_map_source;
    EXPECT_EQ(t.devices[9].pci.to_string(), "0000:84:00.0");
    EXPECT_EQ(t.devices[9].numa_node, 0);
  }
}

TEST(Discovery, Inf2_48xlargeHasFourNumaNodes) {
  const auto& t = discovered("inf2.48xlarge");
  ASSERT_EQ(t.devices.size(), 12u);
  EXPECT_TRUE(t.efa_devices.empty());
  ASSERT_EQ(t.numa_nodes.size(), 4u);
  EXPECT_EQ(numa_cpus(t, 0), "0-23,96-119");
  EXPECT_EQ(numa_cpus(t, 3), "72-95,168-191");
  EXPECT_EQ(devices_on(t, 0), (std::set<unsigned>{8, 9, 10}));
  EXPECT_EQ(devices_on(t, 1), (std::set<unsigned>{6, 7, 11}));
  EXPECT_EQ(devices_on(t, 2), (std::set<unsigned>{0, 2, 4}));
  EXPECT_EQ(devices_on(t, 3), (std::set<unsigned>{1, 3, 5}));
  EXPECT_EQ(t.devices[0].device_name, "Inferentia2");
  EXPECT_EQ(t.devices[0].physical_cores, 2u);
  for (const auto& d : t.devices) EXPECT_TRUE(d.efa_devices.empty());
}

TEST(Discovery, Trn1_2xlargeHasOneDeviceAndNoEfa) {
  const auto& t = discovered("trn1.2xlarge");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].pci.to_string(), "0000:00:1e.0");
  EXPECT_EQ(t.devices[0].numa_node, 0);
  EXPECT_TRUE(t.devices[0].connected_devices.empty());
  EXPECT_TRUE(t.efa_devices.empty());
  EXPECT_EQ(t.cpus.to_string(), "0-7");
  ASSERT_EQ(t.cores.size(), 4u);
  EXPECT_EQ(t.cores[1].cpus.to_string(), "1,5");
}

TEST(Discovery, CpuOnlyNodeHasNoDevices) {
  const auto& t = discovered("cpu-only");
  EXPECT_TRUE(t.devices.empty());
  EXPECT_TRUE(t.efa_devices.empty());
  EXPECT_EQ(t.instance_type, "c5.2xlarge");
  EXPECT_EQ(t.pci_map_source, "no Neuron devices");
  EXPECT_EQ(t.cpus.to_string(), "0-7");
  EXPECT_EQ(t.numa_nodes.size(), 1u);
  EXPECT_FALSE(t.boot_id.empty());
}

TEST(Discovery, MissingRootIsAClearError) {
  trn::topology::DiscoveryOptions options;
  options.fsroot = fixture("no-such-tree");
  try {
    trn::topology::discover(options);
    FAIL();
  } catch (const trn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a directory"), std::string::npos);
  }
}

// hwloc takes its root from HWLOC_FSROOT only: discovery sets it for the call and restores
// whatever the process had, and a stray HWLOC_FSROOT never redirects discovery of another root.
TEST(Discovery, HwlocRootIsScopedAndRestored) {
  ::setenv("HWLOC_FSROOT", fixture("trn2.48xlarge").c_str(), 1);
  trn::topology::DiscoveryOptions options;
  options.fsroot = fixture("trn1.2xlarge");
  const auto t = trn::topology::discover(options);
  EXPECT_EQ(t.cpus.to_string(), "0-7");
  ASSERT_NE(::getenv("HWLOC_FSROOT"), nullptr);
  EXPECT_EQ(std::string(::getenv("HWLOC_FSROOT")), fixture("trn2.48xlarge").string());
  ::unsetenv("HWLOC_FSROOT");
  trn::topology::discover(options);
  EXPECT_EQ(::getenv("HWLOC_FSROOT"), nullptr);
}

// hwloc asserts, aborting the process, on a NUMA node list that names no node (found by
// tests/fuzz): discovery refuses it first, naming the file.
TEST(Discovery, AnEmptyNumaNodeListIsAnError) {
  trn::test::TempDir dir;
  std::filesystem::copy(
      fixture("trn1.2xlarge"), dir.path(),
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  dir.write("sys/devices/system/node/online", "\n");
  trn::topology::DiscoveryOptions options;
  options.fsroot = dir.path();
  try {
    trn::topology::discover(options);
    FAIL() << "discovered a node without NUMA nodes";
  } catch (const trn::Error& error) {
    EXPECT_NE(std::string(error.what()).find("node/online lists no NUMA node"), std::string::npos)
        << error.what();
  }
}
