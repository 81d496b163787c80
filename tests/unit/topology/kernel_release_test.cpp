#include "trn/topology/kernel_release.hpp"

#include <gtest/gtest.h>

#include "trn/common/error.hpp"
#include "trn/topology/pci_address.hpp"

using namespace trn::topology;

TEST(KernelRelease, ForkSafeBelow5_15) {
  EXPECT_TRUE(efa_needs_fork_safe(parse_kernel_release("5.10.217-205.860.amzn2.x86_64", "t")));
  EXPECT_TRUE(efa_needs_fork_safe(parse_kernel_release("4.14.0", "t")));
  EXPECT_FALSE(efa_needs_fork_safe(parse_kernel_release("5.15.0-1063-aws", "t")));
  EXPECT_FALSE(efa_needs_fork_safe(parse_kernel_release("6.1.0-28-cloud-amd64", "t")));
  EXPECT_THROW(parse_kernel_release("linux", "t"), trn::Error);
  EXPECT_THROW(parse_kernel_release("6", "t"), trn::Error);
}

TEST(PciAddress, ParsesWithAndWithoutDomain) {
  EXPECT_EQ(PciAddress::parse("0000:10:1c.0", "t").to_string(), "0000:10:1c.0");
  EXPECT_EQ(PciAddress::parse("cc:00.0", "t").to_string(), "0000:cc:00.0");
  EXPECT_LT(PciAddress::parse("10:1c.0", "t"), PciAddress::parse("10:1d.0", "t"));
  for (const char* bad : {"10:1c", "zz:00.0", "0000:10:20.0", "10:1c.8", "00000:10:1c.0", ""}) {
    EXPECT_THROW(PciAddress::parse(bad, "t"), trn::Error) << bad;
  }
}
