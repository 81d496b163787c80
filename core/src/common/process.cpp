#include "trn/common/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "trn/common/error.hpp"
#include "trn/common/unique_fd.hpp"

extern char** environ;

namespace trn {
namespace {

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const auto name = text.substr(0, text.find('='));
    if (!extra.contains(name)) env.push_back(text);
  }
  for (const auto& [name, value] : extra)
    env.push_back(std::string(name).append("=").append(value));
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (auto& text : strings) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

// posix_spawn_file_actions_t, destroyed on every path out.
class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_{};
};

// The redirections the options ask for; `output` is the write end of a capture pipe, or -1.
void add_redirections(FileActions& actions, const ProcessOptions& options, int output) {
  if (options.stdin_dev_null) {
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  if (output >= 0) posix_spawn_file_actions_adddup2(actions.get(), output, STDOUT_FILENO);
  if (options.stderr_to == StderrTo::kOutput && output >= 0) {
    posix_spawn_file_actions_adddup2(actions.get(), output, STDERR_FILENO);
  } else if (options.stderr_to == StderrTo::kDevNull) {
    posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
}

int spawn(const std::vector<std::string>& argv, const ProcessOptions& options, int output) {
  if (argv.empty()) throw Error("internal: empty command");
  FileActions actions;
  if (output < 0 && options.output_fd >= 0) {
    add_redirections(actions,
                     {.stderr_to = StderrTo::kOutput, .stdin_dev_null = options.stdin_dev_null},
                     options.output_fd);
  } else {
    add_redirections(actions, options, output);
  }
  auto args = argv;
  auto env = merged_environment(options.extra_env);
  auto arg_pointers = pointers(args);
  auto env_pointers = pointers(env);
  posix_spawnattr_t attributes{};
  posix_spawnattr_init(&attributes);
  if (options.own_process_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, args[0].c_str(), actions.get(), &attributes,
                                 arg_pointers.data(), env_pointers.data());
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw Error("cannot start '" + argv[0] + "': " + std::strerror(error) +
                " (is it installed and on PATH?)");
  }
  return pid;
}

// The raw waitpid status; std::nullopt while still running (block=false).
std::optional<int> wait_status(int pid, bool block, bool host_may_reap) {
  int status = 0;
  pid_t done = 0;
  do {
    done = waitpid(pid, &status, block ? 0 : WNOHANG);
  } while (done < 0 && errno == EINTR);
  if (done == 0) return std::nullopt;
  if (done < 0) {
    if (errno == ECHILD && host_may_reap) return 0;
    throw Error(std::string("waitpid failed: ") + std::strerror(errno));
  }
  return status;
}

int shell_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

// Reads `fd` to its end, or until `deadline`; false when the deadline passed first.
bool read_all(int fd, std::optional<std::chrono::steady_clock::time_point> deadline,
              std::string* output) {
  std::vector<char> buffer(std::size_t{1} << 16);
  for (;;) {
    int wait_ms = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      wait_ms = static_cast<int>(left.count());
    }
    pollfd ready_fd{fd, POLLIN, 0};
    const int ready = ::poll(&ready_fd, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return false;
    if (ready < 0) return true;
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return true;
    output->append(buffer.data(), static_cast<std::size_t>(got));
  }
}

}  // namespace

int start_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  return spawn(argv, options, -1);
}

int wait_process(int pid, bool block) {
  const auto status = wait_status(pid, block, /*host_may_reap=*/false);
  return status ? shell_status(*status) : -1;
}

int run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  const int pid = start_process(argv, options);
  return shell_status(*wait_status(pid, /*block=*/true, options.host_may_reap));
}

CapturedProcess capture_process(const std::vector<std::string>& argv,
                                const ProcessOptions& options) {
  std::array<int, 2> pipe_fds{};
  // Close-on-exec: the child's stdout is a dup2 of the write end, and no other child started
  // meanwhile keeps the pipe open.
  if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) {
    throw Error("cannot start '" + (argv.empty() ? std::string() : argv[0]) +
                "': pipe: " + std::strerror(errno));
  }
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);
  const int pid = spawn(argv, options, write_end.get());
  write_end.close();
  const auto started = std::chrono::steady_clock::now();
  CapturedProcess result;
  const bool finished = read_all(
      read_end.get(), options.timeout ? std::optional(started + *options.timeout) : std::nullopt,
      &result.output);
  read_end.close();
  if (!finished) {
    ::kill(options.own_process_group ? -pid : pid, SIGKILL);
    wait_status(pid, /*block=*/true, /*host_may_reap=*/true);
    result.timed_out = true;
    return result;
  }
  const int status = *wait_status(pid, /*block=*/true, options.host_may_reap);
  result.status = shell_status(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace trn
