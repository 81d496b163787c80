#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "fixtures.hpp"
#include "temp_dir.hpp"
#include "trn/common/error.hpp"
#include "trn/topology/discover.hpp"

// core_count and connected_devices are mode 0400 on a real node. Discovery by an unprivileged
// user (trn-topo) falls back to the documented core count and says so. As root the test drops
// to nobody in a child process; otherwise the files are made unreadable to their owner.
TEST(RootOnlyFiles, UnprivilegedDiscoveryUsesTheDocumentedCoreCount) {
  trn::test::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const auto root = dir.path() / "trn1.2xlarge";
  std::filesystem::copy(
      trn::test::fixture("trn1.2xlarge"), root,
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  const auto device = root / "sys/devices/virtual/neuron_device/neuron0";
  const bool as_root = ::geteuid() == 0;
  for (const char* file : {"core_count", "connected_devices"}) {
    ASSERT_EQ(::chmod((device / file).c_str(), as_root ? 0400 : 0000), 0);
  }

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    std::string result;
    if (as_root &&
        (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)) {
      result = "cannot drop privileges";
    } else {
      try {
        trn::topology::DiscoveryOptions options;
        options.fsroot = root;
        const auto t = trn::topology::discover(options);
        result = std::to_string(t.devices.at(0).physical_cores) + "|" +
                 t.devices.at(0).core_count_source + "|" +
                 std::to_string(t.devices.at(0).connected_devices.size());
      } catch (const std::exception& e) {
        result = std::string("error: ") + e.what();
      }
    }
    (void)!::write(fds[1], result.data(), result.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string result;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) result.append(buffer, std::size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_EQ(result, "2|documented for Trainium1 (core_count is readable by root only)|0");
}
