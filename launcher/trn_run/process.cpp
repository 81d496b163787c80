#include "process.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "trn/common/error.hpp"

extern char** environ;

namespace trn::launcher {
namespace {

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const auto name = text.substr(0, text.find('='));
    if (!extra.contains(name)) env.push_back(text);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (auto& text : strings) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

int spawn(const std::vector<std::string>& argv, const ProcessOptions& options,
          posix_spawn_file_actions_t* actions) {
  if (argv.empty()) throw Error("internal: empty command");
  auto args = argv;
  auto env = merged_environment(options.extra_env);
  auto arg_pointers = pointers(args);
  auto env_pointers = pointers(env);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, args[0].c_str(), actions, nullptr, arg_pointers.data(),
                                 env_pointers.data());
  if (error != 0) {
    throw Error("cannot start '" + argv[0] + "': " + std::strerror(error) +
                " (is it installed and on PATH?)");
  }
  return pid;
}

}  // namespace

int start_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  return spawn(argv, options, nullptr);
}

int wait_process(int pid, bool block) {
  int status = 0;
  pid_t done = 0;
  do {
    done = waitpid(pid, &status, block ? 0 : WNOHANG);
  } while (done < 0 && errno == EINTR);
  if (done == 0) return -1;
  if (done < 0) throw Error(std::string("waitpid failed: ") + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

int run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  return wait_process(start_process(argv, options));
}

CapturedProcess capture_process(const std::vector<std::string>& argv,
                                const ProcessOptions& options) {
  std::array<int, 2> pipe_fds{};
  if (pipe(pipe_fds.data()) != 0) throw Error(std::string("pipe failed: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  if (options.capture_stderr)
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  int pid = 0;
  try {
    pid = spawn(argv, options, &actions);
  } catch (...) {
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw;
  }
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  CapturedProcess result;
  std::array<char, 65536> buffer{};
  for (;;) {
    const auto got = read(pipe_fds[0], buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    result.output.append(buffer.data(), static_cast<std::size_t>(got));
  }
  close(pipe_fds[0]);
  result.status = wait_process(pid);
  return result;
}

}  // namespace trn::launcher
