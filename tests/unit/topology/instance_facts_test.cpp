// The published facts per instance type (docs/hardware.md#instances) and what follows from them.
#include "trn/topology/instance_facts.hpp"

#include <gtest/gtest.h>

#include "trn/topology/instance_maps.hpp"
#include "trn/topology/node_topology.hpp"

namespace {

using trn::topology::documented_neuron_cores;
using trn::topology::instance_facts;

TEST(InstanceFacts, Trn2TypesHaveSixteenTrainium2DevicesOfEightCoresAnd96GiB) {
  for (const auto* type : {"trn2.48xlarge", "trn2u.48xlarge"}) {
    const auto* facts = instance_facts(type);
    ASSERT_NE(facts, nullptr) << type;
    EXPECT_EQ(facts->device_name, "Trainium2");
    EXPECT_EQ(facts->devices, 16u);
    EXPECT_EQ(facts->physical_cores_per_device, 8u);
    EXPECT_EQ(facts->default_lnc, 2u);
    EXPECT_EQ(facts->device_memory_gib, 96u);
    EXPECT_EQ(facts->logical_cores(2), 64u);
    EXPECT_EQ(facts->logical_cores(1), 128u);
    EXPECT_EQ(facts->lnc_values_text(), "1 or 2");
  }
}

TEST(InstanceFacts, Trn3TypesHaveTrainium3DevicesOfEightCoresAnd144GiB) {
  struct Expected {
    const char* type;
    unsigned devices;
  };
  for (const auto& [type, devices] :
       {Expected{"trn3.48xlarge", 16}, Expected{"trn3p.48xlarge", 16},
        Expected{"trn3e.24xlarge", 4}, Expected{"trn3pd98.3xlarge", 1}}) {
    const auto* facts = instance_facts(type);
    ASSERT_NE(facts, nullptr) << type;
    EXPECT_EQ(facts->device_name, "Trainium3") << type;
    EXPECT_EQ(facts->devices, devices) << type;
    EXPECT_EQ(facts->physical_cores_per_device, 8u) << type;
    EXPECT_TRUE(facts->offers_lnc(1) && facts->offers_lnc(2)) << type;
    EXPECT_FALSE(facts->offers_lnc(4)) << type;
    EXPECT_EQ(facts->default_lnc, 2u) << type;
    EXPECT_EQ(facts->device_memory_gib, 144u) << type;
    EXPECT_EQ(facts->logical_cores(2), devices * 4) << type;
  }
}

TEST(InstanceFacts, Trainium1HasNoLogicalConfigBeyondOne) {
  const auto* facts = instance_facts("trn1.32xlarge");
  ASSERT_NE(facts, nullptr);
  EXPECT_TRUE(facts->offers_lnc(1));
  EXPECT_FALSE(facts->offers_lnc(2));
  EXPECT_EQ(facts->lnc_values_text(), "only 1");
  EXPECT_EQ(facts->logical_cores(1), 32u);
}

TEST(InstanceFacts, UnknownTypesHaveNone) {
  EXPECT_EQ(instance_facts("trn1.23xlarge"), nullptr);
  EXPECT_EQ(instance_facts("c5.4xlarge"), nullptr);
}

TEST(InstanceFacts, EveryDocumentedMapHasTheDevicesOfItsTypesFacts) {
  // The PCI maps name no device or count of their own: the facts' must hold for them.
  for (const auto* type :
       {"trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge", "inf2.48xlarge"}) {
    const auto* map = trn::topology::documented_instance_map(type);
    const auto* facts = instance_facts(type);
    ASSERT_NE(map, nullptr) << type;
    ASSERT_NE(facts, nullptr) << type;
    EXPECT_EQ(map->devices.size(), facts->devices) << type;
  }
}

TEST(InstanceFacts, CoresPerDeviceAndTheLncSettingFollowTheDevicesFacts) {
  using trn::topology::documented_cores_per_device;
  EXPECT_EQ(documented_cores_per_device("Trainium1"), 2u);
  EXPECT_EQ(documented_cores_per_device("Inferentia2"), 2u);
  EXPECT_EQ(documented_cores_per_device("Trainium2"), 8u);
  EXPECT_EQ(documented_cores_per_device("Trainium3"), 8u);
  EXPECT_EQ(documented_cores_per_device("Inferentia"), 4u);
  EXPECT_EQ(documented_cores_per_device("Trainium9"), 0u);
  trn::topology::NodeTopology node;
  for (const auto& [device, offers] : {std::pair{"Trainium1", false},
                                       {"Inferentia2", false},
                                       {"Trainium2", true},
                                       {"Trainium3", true}}) {
    node.devices.assign(1, {});
    node.devices.front().device_name = device;
    EXPECT_EQ(node.offers_logical_nc_config(), offers) << device;
  }
}

TEST(InstanceFacts, DocumentedCoresFollowTheFactsAndTheirDefaultConfig) {
  EXPECT_EQ(documented_neuron_cores("trn3.48xlarge"), 64u);
  EXPECT_EQ(documented_neuron_cores("trn3.48xlarge", 1), 128u);
  EXPECT_EQ(documented_neuron_cores("trn1.32xlarge", 2), 32u);  // trn1 offers only 1
  EXPECT_EQ(documented_neuron_cores("c5.4xlarge"), std::nullopt);
}

}  // namespace
