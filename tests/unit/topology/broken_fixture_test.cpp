#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "trn/common/error.hpp"
#include "trn/topology/discover.hpp"

namespace {

struct Broken {
  const char* tree;
  std::vector<const char*> message_parts;  // each must appear in the error
  const char* neuron_ls = nullptr;         // recorded output inside the tree, if any
};

void PrintTo(const Broken& b, std::ostream* os) { *os << b.tree; }

class BrokenFixture : public ::testing::TestWithParam<Broken> {};

TEST_P(BrokenFixture, GivesAClearError) {
  const Broken& broken = GetParam();
  trn::topology::DiscoveryOptions options;
  options.fsroot = trn::test::fixture(std::string("broken/") + broken.tree);
  try {
    if (broken.neuron_ls) {
      options.neuron_ls = trn::topology::read_neuron_ls_file(options.fsroot / broken.neuron_ls);
    }
    trn::topology::discover(options);
    FAIL() << "no error for " << broken.tree;
  } catch (const trn::Error& e) {
    const std::string message = e.what();
    for (const char* part : broken.message_parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
    // Every message says what to do, after a colon.
    EXPECT_NE(message.rfind(": "), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Trees, BrokenFixture,
    ::testing::Values(
        Broken{"missing-core-count", {"neuron0/core_count", "No such file", "Neuron driver"}},
        Broken{"garbage-core-count", {"neuron0/core_count", "'two'"}},
        Broken{"garbage-connected-devices", {"connected_devices", "'12, x'"}},
        Broken{"missing-architecture", {"info/architecture/device_name", "Neuron driver"}},
        Broken{"no-pci-function",
               {"neuron0 maps to PCI function 0000:00:1e.0", "documented map for trn1.2xlarge",
                "neuron-ls -j"}},
        Broken{"extra-pci-function", {"0000:00:1f.0", "belongs to no Neuron device"}},
        Broken{"garbage-numa-node", {"0000:00:1e.0/numa_node", "'banana'"}},
        Broken{"unknown-numa-node",
               {"neuron0 maps to PCI function 0000:00:1e.0",
                "NUMA node 0) but sysfs reports NUMA node 3"}},
        Broken{"unknown-numa-node",
               {"neuron0 (PCI 0000:00:1e.0) reports NUMA node 3", "NUMA nodes 0"},
               "neuron-ls.json"},
        Broken{"garbage-local-cpulist", {"0000:00:1e.0/local_cpulist", "'0-'"}},
        Broken{"undocumented-instance", {"2 Neuron devices", "trn1.unknown", "neuron-ls -j"}},
        Broken{"missing-cpus", {"sys/devices/system/cpu/online", "No such file"}},
        Broken{"garbage-cpu-online", {"sys/devices/system/cpu/online", "'all'"}},
        Broken{"garbage-osrelease", {"osrelease", "'linux'", "not a kernel release"}},
        Broken{"missing-osrelease", {"proc/sys/kernel/osrelease", "No such file"}},
        Broken{"efa-dangling-device", {"rdmap0s6/device/vendor", "No such file"}},
        Broken{"neuron-ls-wrong-bdf",
               {"neuron0 maps to PCI function 0000:00:1f.0", "neuron-ls.json"},
               "neuron-ls.json"},
        Broken{"neuron-ls-garbage", {"neuron-ls.json", "not valid JSON"}, "neuron-ls.json"}));

}  // namespace
