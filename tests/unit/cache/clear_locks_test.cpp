#include "trn/cache/clear_locks.hpp"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "cache_tree.hpp"
#include "trn/cache/compiler_processes.hpp"
#include "trn/cache/scan.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {
namespace {

using test::make_entry;
using test::TempDir;
using test::write_file;

// argv as /proc/PID/cmdline holds it: each argument ends with a NUL.
std::string cmdline(std::initializer_list<const char*> argv) {
  std::string text;
  for (const char* arg : argv) {
    text += arg;
    text += '\0';
  }
  return text;
}

// A /proc tree as the kernel shows it: PID/comm (with a newline) and PID/cmdline (NUL-separated).
void fake_process(const std::filesystem::path& proc, int pid, const std::string& comm,
                  const std::string& cmdline) {
  write_file(proc / std::to_string(pid) / "comm", comm + "\n");
  write_file(proc / std::to_string(pid) / "cmdline", cmdline);
}

std::filesystem::path quiet_proc(const std::filesystem::path& base) {
  const auto proc = base / "proc";
  fake_process(proc, 1, "systemd", cmdline({"/sbin/init"}));
  fake_process(proc, 812, "slurmd", cmdline({"/usr/sbin/slurmd", "-D"}));
  fake_process(proc, 900, "python3",
               cmdline({"/usr/bin/python3", "-m", "trn_trainer", "pretrain"}));
  write_file(proc / "meminfo", "MemTotal: 1 kB\n");
  std::filesystem::create_directories(proc / "sys");
  return proc;
}

TEST(CompilerProcesses, NoneInAQuietProcessTable) {
  TempDir tmp;
  EXPECT_TRUE(find_compiler_processes(quiet_proc(tmp.path())).empty());
}

TEST(CompilerProcesses, FindsNeuronxCcAndParallelCompile) {
  TempDir tmp;
  const auto proc = quiet_proc(tmp.path());
  // A Python entry point: the interpreter runs the script, comm is the script's name.
  fake_process(proc, 4242, "neuronx-cc",
               cmdline({"/usr/bin/python3", "/opt/aws/bin/neuronx-cc", "compile"}));
  // comm is cut to 15 characters.
  fake_process(proc, 5151, "neuron_parallel",
               cmdline({"/usr/bin/python3", "/usr/local/bin/neuron_parallel_compile", "./run.sh"}));
  const auto found = find_compiler_processes(proc);
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].pid, 4242);
  EXPECT_EQ(found[0].name, "neuronx-cc");
  EXPECT_EQ(found[1].pid, 5151);
  EXPECT_EQ(found[1].name, "neuron_parallel_compile");
}

TEST(CompilerProcesses, ByCommandLineAlone) {
  TempDir tmp;
  const auto proc = quiet_proc(tmp.path());
  fake_process(proc, 77, "python3", cmdline({"python3", "/x/neuron_parallel_compile"}));
  const auto found = find_compiler_processes(proc);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].pid, 77);
}

TEST(CompilerProcesses, AnArgumentNamingTheCompilerIsNotIt) {
  TempDir tmp;
  const auto proc = quiet_proc(tmp.path());
  fake_process(proc, 78, "vim", cmdline({"vim", "notes", "neuronx-cc"}));
  EXPECT_TRUE(find_compiler_processes(proc).empty());
}

// A child running /bin/sleep under the argv[0] "neuronx-cc" (its comm stays "sleep"), so the
// real /proc shows a compiler by its command line alone; killed and reaped at the end.
class ChildCalledNeuronxCc {
 public:
  ChildCalledNeuronxCc() {
    int exec_done[2];
    if (::pipe2(exec_done, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    pid_ = ::fork();
    if (pid_ == 0) {
      char name[] = "neuronx-cc";
      char seconds[] = "60";
      char* const argv[] = {name, seconds, nullptr};
      ::execv("/bin/sleep", argv);
      ::_exit(127);
    }
    ::close(exec_done[1]);
    // The pipe closes on exec (or exit): until then /proc would still show this test's argv.
    char byte = 0;
    while (::read(exec_done[0], &byte, 1) < 0 && errno == EINTR) {
    }
    ::close(exec_done[0]);
  }
  ~ChildCalledNeuronxCc() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  ChildCalledNeuronxCc(const ChildCalledNeuronxCc&) = delete;
  ChildCalledNeuronxCc& operator=(const ChildCalledNeuronxCc&) = delete;
  long pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

TEST(CompilerProcesses, TheRealProcessTableReads) {
  const ChildCalledNeuronxCc child;
  ASSERT_GT(child.pid(), 0) << "fork failed";
  const auto found = find_compiler_processes("/proc");
  EXPECT_THAT(found, ::testing::Contains(
                         ::testing::AllOf(::testing::Field(&CompilerProcess::pid, child.pid()),
                                          ::testing::Field(&CompilerProcess::name, "neuronx-cc"))));
  // This test process itself is no compiler.
  for (const auto& p : found) EXPECT_NE(p.pid, ::getpid());
}

TEST(CompilerProcesses, MissingProcessTableIsAnError) {
  TempDir tmp;
  EXPECT_THROW(find_compiler_processes(tmp.path() / "none"), Error);
}

class ClearLocks : public ::testing::Test {
 protected:
  void SetUp() override {
    proc_ = quiet_proc(tmp_.path());
    old_ = make_entry(cache(), "MODULE_1+a", {"model.hlo_module.pb", "model.hlo_module.pb.lock"});
    test::age_files(old_, std::chrono::hours(3));
    young_ = make_entry(cache(), "MODULE_2+a", {"model.hlo_module.pb", "model.hlo_module.pb.lock"});
    test::age_files(young_, std::chrono::minutes(10));
  }
  std::filesystem::path cache() const { return tmp_.path() / "cache"; }
  ClearLocksOptions options() const {
    ClearLocksOptions o;
    o.proc_root = proc_;
    return o;
  }

  TempDir tmp_;
  std::filesystem::path proc_;
  std::filesystem::path old_;
  std::filesystem::path young_;
};

TEST_F(ClearLocks, RemovesOnlyLocksOlderThanTheThreshold) {
  const auto report = clear_locks(cache(), options());
  ASSERT_EQ(report.removed.size(), 1U);
  EXPECT_EQ(report.removed[0], old_ / "model.hlo_module.pb.lock");
  EXPECT_EQ(report.kept_recent, 1U);
  EXPECT_FALSE(std::filesystem::exists(old_ / "model.hlo_module.pb.lock"));
  EXPECT_TRUE(std::filesystem::exists(old_ / "model.hlo_module.pb"));
  EXPECT_TRUE(std::filesystem::exists(young_ / "model.hlo_module.pb.lock"));
  EXPECT_EQ(read_entry(old_)->state, EntryState::kEmpty);

  auto shorter = options();
  shorter.older_than = std::chrono::minutes(5);
  EXPECT_EQ(clear_locks(cache(), shorter).removed.size(), 1U);
  EXPECT_FALSE(std::filesystem::exists(young_ / "model.hlo_module.pb.lock"));
}

TEST_F(ClearLocks, RefusedWhileACompilerRuns) {
  fake_process(proc_, 4242, "neuronx-cc",
               cmdline({"/usr/bin/python3", "/opt/aws/bin/neuronx-cc", "compile"}));
  try {
    clear_locks(cache(), options());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("neuronx-cc (pid 4242)"));
  }
  EXPECT_TRUE(std::filesystem::exists(old_ / "model.hlo_module.pb.lock"));
  EXPECT_TRUE(std::filesystem::exists(young_ / "model.hlo_module.pb.lock"));
}

}  // namespace
}  // namespace trn::cache
