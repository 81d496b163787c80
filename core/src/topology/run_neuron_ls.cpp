#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "trn/common/error.hpp"
#include "trn/topology/neuron_ls.hpp"

extern char** environ;

namespace trn::topology {
namespace {

// Waits for the child; ECHILD means a host process (slurmstepd) reaped it first, which is not
// a failure of neuron-ls: its output is then judged by parsing.
int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno == EINTR) continue;
    return 0;
  }
  return status;
}

}  // namespace

std::optional<NeuronLsOutput> run_neuron_ls(const std::filesystem::path& executable,
                                            std::chrono::milliseconds timeout) {
  const std::string origin = executable.string() + " -j";
  if (::access(executable.c_str(), X_OK) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error("cannot run " + origin + ": " + std::strerror(errno) +
                ": install aws-neuronx-tools or pass a recorded neuron-ls output");
  }
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw Error("cannot run " + origin + ": pipe: " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::string path = executable.string();
  std::string flag = "-j";
  char* argv[] = {path.data(), flag.data(), nullptr};
  pid_t pid = -1;
  const int spawn_error = ::posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawn_error != 0) {
    ::close(pipe_fds[0]);
    throw Error("cannot run " + origin + ": " + std::strerror(spawn_error));
  }

  NeuronLsOutput output{{}, origin};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{pipe_fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.json.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  if (timed_out) {
    ::kill(pid, SIGKILL);
    wait_for(pid);
    throw Error(origin + " did not finish within " + std::to_string(timeout.count()) +
                " ms: check the Neuron driver (dmesg), or pass a recorded neuron-ls output");
  }
  const int status = wait_for(pid);
  if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) {
    throw Error(origin + " failed (" +
                (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                     : "exit status " + std::to_string(WEXITSTATUS(status))) +
                "): run it by hand to see why, or pass a recorded neuron-ls output");
  }
  return output;
}

}  // namespace trn::topology
