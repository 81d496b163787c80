#include "trn/common/process.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "temp_dir.hpp"

namespace trn {
namespace {

using namespace std::chrono_literals;

// A process is gone when /proc no longer has it or holds only its zombie (reaped late by PID 1).
bool gone(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  return !(stat >> pid_field >> name >> state) || state == "Z";
}

TEST(Process, ATimeoutKillsTheChildsWholeProcessGroupWhenItLeadsOne) {
  test::TempDir dir;
  const auto tool = dir.write_script("tool", "sleep 30 & echo $! >\"$0.helper\"; wait");
  ProcessOptions options;
  options.timeout = 500ms;
  options.own_process_group = true;
  const auto ran = capture_process({tool.string()}, options);
  EXPECT_TRUE(ran.timed_out);
  int helper = 0;
  std::ifstream(tool.string() + ".helper") >> helper;
  ASSERT_GT(helper, 0);
  for (int i = 0; i < 50 && !gone(helper); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(gone(helper)) << "the tool's helper " << helper << " outlived the timeout";
}

}  // namespace
}  // namespace trn
