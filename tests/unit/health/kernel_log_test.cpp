#include "trn/health/kernel_log.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "contains_all.hpp"
#include "temp_dir.hpp"
#include "trn/common/error.hpp"

namespace trn::health {
namespace {

TEST(KernelLog, ParsesTheDriversHardwareErrorRecord) {
  const auto line = parse_kmsg_record(
      "3,1207,81234567,-;neuron: NEURON_HW_ERR=SRAM_UNCORRECTABLE_ERROR instance-id=i-0abc "
      "nd-id=7 nc-id=15 serial-num=ABC123 action=REPLACE");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->sequence, 1207u);
  EXPECT_EQ(line->type, "SRAM_UNCORRECTABLE_ERROR");
  EXPECT_EQ(line->device, "7");
  EXPECT_EQ(line->core, "15");
  EXPECT_EQ(line->action, "REPLACE");
  EXPECT_TRUE(line->permanent);
  EXPECT_FALSE(parse_kmsg_record("6,1208,81234999,-;neuron: module loaded"));
  EXPECT_FALSE(parse_kmsg_record("NEURON_HW_ERR=DMA_ERROR without a record prefix"));
}

TEST(KernelLog, ClassifiesAsTheNeuronProblemDetector) {
  for (const auto* type : {"SRAM_UNCORRECTABLE_ERROR", "NC_UNCORRECTABLE_ERROR",
                           "HBM_UNCORRECTABLE_ERROR", "DMA_ERROR"}) {
    EXPECT_TRUE(is_permanent_hardware_error(type)) << type;
  }
  EXPECT_FALSE(is_permanent_hardware_error("HBM_REPAIRABLE_ERROR"));
  EXPECT_FALSE(is_permanent_hardware_error("SOMETHING_NEW"));
}

TEST(KernelLog, ReadsRecordsAfterTheBaselineOnly) {
  test::TempDir root;
  root.write("dev/kmsg",
             "6,1,0,-;Linux version\n"
             "3,2,10,-;neuron: NEURON_HW_ERR=HBM_REPAIRABLE_ERROR nd-id=1 action=RESET\n"
             " SUBSYSTEM=pci\n"
             "garbage line\n"
             "3,5,20,-;neuron: NEURON_HW_ERR=DMA_ERROR nd-id=4\n");
  const auto all = scan_kernel_log(root.path(), 0);
  ASSERT_EQ(all.errors.size(), 2u);
  EXPECT_FALSE(all.errors[0].permanent);
  EXPECT_TRUE(all.errors[1].permanent);
  EXPECT_EQ(all.last_sequence, 5u);
  const auto later = scan_kernel_log(root.path(), 2);
  ASSERT_EQ(later.errors.size(), 1u);
  EXPECT_EQ(later.errors[0].type, "DMA_ERROR");
  EXPECT_TRUE(scan_kernel_log(root.path(), 5).errors.empty());
}

// A 1 GiB recorded log is read from its end, within a bounded size and time, and says so.
TEST(KernelLog, AHugeFileIsReadFromItsEndOnly) {
  test::TempDir root;
  const auto file = root.write("dev/kmsg", "3,1,0,-;NEURON_HW_ERR=DMA_ERROR nd-id=0\n");
  ASSERT_EQ(::truncate(file.c_str(), off_t{1} << 30), 0);
  std::ofstream(file, std::ios::app)
      << "\n3,9,0,-;neuron: NEURON_HW_ERR=NC_UNCORRECTABLE_ERROR nd-id=2\n";
  const auto start = std::chrono::steady_clock::now();
  const auto scan = scan_kernel_log(root.path(), 0, 4u << 20);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(scan.errors.size(), 1u);
  EXPECT_EQ(scan.errors[0].type, "NC_UNCORRECTABLE_ERROR");
  test::expect_contains_all(scan.note, {"read the last 4 MiB", "1024 MiB"});
}

TEST(KernelLog, AFifoOrMissingLogIsAnErrorNotAHang) {
  test::TempDir root;
  std::filesystem::create_directories(root.path() / "dev");
  EXPECT_THROW(scan_kernel_log(root.path(), 0), Error);
  ASSERT_EQ(::mkfifo((root.path() / "dev/kmsg").c_str(), 0600), 0);
  try {
    scan_kernel_log(root.path(), 0);
    FAIL() << "a FIFO was read as a kernel log";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), testing::HasSubstr("neither the kernel's record device"));
  }
}

}  // namespace
}  // namespace trn::health
