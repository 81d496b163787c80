// task_init_privileged (root, in the task's process before exec): EFA's memlock and nofile
// limits; task_init on the real root: CPU binding. Both change the calling process, so each
// case runs in a child, as slurmstepd runs each task in a forked child.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <sstream>

#include "plugin_test.hpp"
#include "trn/common/id_list.hpp"

namespace trn::test {
namespace {

using ::testing::HasSubstr;

// Runs `work` in a forked child and returns what it wrote.
std::string in_child(const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const std::string out = work();
    const ssize_t written = ::write(fds[1], out.data(), out.size());
    ::_exit(written == ssize_t(out.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) out.append(buffer, size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) out += " [child failed]";
  return out;
}

rlimit limit(int resource) {
  rlimit r{};
  ::getrlimit(resource, &r);
  return r;
}

class Limits : public PluginTest {
 protected:
  // A login shell's limits, then init/init_post_opt and task 0's task_init_privileged.
  std::string privileged_task(const std::vector<std::string>& args, const Options& options = {}) {
    return in_child([&] {
      rlimit memlock = limit(RLIMIT_MEMLOCK);
      memlock.rlim_cur = 64 * 1024;
      ::setrlimit(RLIMIT_MEMLOCK, &memlock);
      rlimit nofile = limit(RLIMIT_NOFILE);
      nofile.rlim_cur = 1024;
      ::setrlimit(RLIMIT_NOFILE, &nofile);
      auto& host = fake_spank::state();
      plugin().call("init", args);
      for (const auto& [name, value] : options) plugin().option(name, value, true);
      plugin().call("init_post_opt", args);
      host.task_id = 0;
      const int rc = plugin().call("task_init_privileged", args);
      std::ostringstream out;
      out << "rc=" << rc << " memlock=" << limit(RLIMIT_MEMLOCK).rlim_cur
          << " nofile=" << limit(RLIMIT_NOFILE).rlim_cur
          << " env_memlock=" << value_of(host.env, "SLURM_RLIMIT_MEMLOCK")
          << " env_nofile=" << value_of(host.env, "SLURM_RLIMIT_NOFILE") << " log=";
      for (const auto& line : fake_spank::log_lines("verbose", "RLIMIT")) out << line << "|";
      return out.str();
    });
  }
};

std::string expected_memlock() {
  // Unlimited, or as far as the hard limit when the kernel refuses more (no CAP_SYS_RESOURCE).
  rlimit wanted{RLIM_INFINITY, RLIM_INFINITY};
  const std::string got = in_child([&] {
    const rlim_t hard = limit(RLIMIT_MEMLOCK).rlim_max;
    return std::to_string(::setrlimit(RLIMIT_MEMLOCK, &wanted) == 0 ? RLIM_INFINITY : hard);
  });
  return got;
}

std::string expected_nofile() {
  const std::string got = in_child([] {
    rlimit current = limit(RLIMIT_NOFILE);
    rlimit wanted{65535, std::max<rlim_t>(current.rlim_max, 65535)};
    return std::to_string(::setrlimit(RLIMIT_NOFILE, &wanted) == 0 ? std::max<rlim_t>(65535, 1024)
                                                                   : current.rlim_max);
  });
  return got;
}

TEST_F(Limits, EfaRaisesMemlockAndNofileAndDropsTheLowerPropagatedLimits) {
  set_up_step(1, 0, 1, "localhost");
  fake_spank::state().env["SLURM_RLIMIT_MEMLOCK"] = "65536";
  fake_spank::state().env["SLURM_RLIMIT_NOFILE"] = "1024";
  const std::string out = privileged_task(args_for("trn1.32xlarge"));
  EXPECT_THAT(out, HasSubstr("rc=0 "));
  EXPECT_THAT(out, HasSubstr(" memlock=" + expected_memlock() + " "));
  EXPECT_THAT(out, HasSubstr(" nofile=" + expected_nofile() + " "));
  EXPECT_THAT(out, HasSubstr("env_memlock=<unset>"));
  EXPECT_THAT(out, HasSubstr("env_nofile=<unset>"));
  EXPECT_THAT(out, HasSubstr("spank_trn: EFA in use: RLIMIT_MEMLOCK raised from 65536 to "));
  EXPECT_THAT(out, HasSubstr("spank_trn: EFA in use: RLIMIT_NOFILE raised from 1024 to "));
  // Says the login shell's limit, which Slurm would set right before exec, was dropped.
  EXPECT_THAT(out, HasSubstr("RLIMIT_MEMLOCK (65536) is not propagated to the task"));
}

TEST_F(Limits, AnExplicitUserPropagationIsKept) {
  set_up_step(1, 0, 1, "localhost");
  fake_spank::state().env["SLURM_RLIMIT_MEMLOCK"] = "U65536";
  const std::string out = privileged_task(args_for("trn1.32xlarge"));
  EXPECT_THAT(out, HasSubstr("env_memlock=U65536"));
  EXPECT_THAT(out, HasSubstr("SLURM_RLIMIT_MEMLOCK kept: the user asked to propagate it"));
}

TEST_F(Limits, WithoutEfaNothingChanges) {
  for (const auto& [fixture_name, options] : std::vector<std::pair<std::string, Options>>{
           {"cpu-only", {}}, {"inf2.48xlarge", {}}, {"trn1.32xlarge", {{"neuron-efa", "off"}}}}) {
    fake_spank::reset();
    set_up_step(1, 0, 1, "localhost");
    fake_spank::state().env["SLURM_RLIMIT_MEMLOCK"] = "65536";
    const std::string out = privileged_task(args_for(fixture_name), options);
    EXPECT_THAT(out, HasSubstr("rc=0 memlock=65536 nofile=1024 env_memlock=65536")) << fixture_name;
  }
}

TEST_F(Limits, OnTheRealRootTasksAreBoundToTheirCpus) {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  const unsigned tasks = online >= 2 ? 2 : 1;
  set_up_step(1, 0, tasks, "localhost");
  const std::string out = in_child([&] {
    const auto args = args_for("/", {"bind=cores"});
    plugin().call("init", args);
    plugin().call("init_post_opt", args);
    fake_spank::state().task_id = int(tasks - 1);
    fake_spank::state().task_global_id = tasks - 1;
    const int rc = plugin().call("task_init", args);
    cpu_set_t set;
    CPU_ZERO(&set);
    ::sched_getaffinity(0, sizeof set, &set);
    std::vector<unsigned> cpus;
    for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
    return "rc=" + std::to_string(rc) + " affinity=" + IdList(cpus).to_string() +
           " TRN_CPUS=" + value_of(fake_spank::state().env, "TRN_CPUS") + " ";
  });
  ASSERT_THAT(out, HasSubstr("rc=0 "));
  const auto start = out.find("affinity=") + 9;
  const std::string affinity = out.substr(start, out.find(' ', start) - start);
  EXPECT_THAT(out, HasSubstr("TRN_CPUS=" + affinity + " "));
  if (tasks == 2) {  // the last task gets the second half of the node's cores
    EXPECT_NE(affinity, "0-" + std::to_string(online - 1));
    EXPECT_FALSE(IdList::parse(affinity, "affinity").contains(0));
  }
}

TEST_F(Limits, WithBindNoneTheAffinityIsLeftAlone) {
  set_up_step(1, 0, 1, "localhost");
  const std::string out = in_child([&] {
    cpu_set_t only0;
    CPU_ZERO(&only0);
    CPU_SET(0, &only0);
    ::sched_setaffinity(0, sizeof only0, &only0);
    const auto args = args_for("/", {"bind=none"});
    plugin().call("init", args);
    plugin().call("init_post_opt", args);
    fake_spank::state().task_id = 0;
    const int rc = plugin().call("task_init", args);
    cpu_set_t set;
    CPU_ZERO(&set);
    ::sched_getaffinity(0, sizeof set, &set);
    return "rc=" + std::to_string(rc) + " count=" + std::to_string(CPU_COUNT(&set));
  });
  EXPECT_EQ(out, "rc=0 count=1");
}

}  // namespace
}  // namespace trn::test
