#include "node_workers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "task_setup.hpp"
#include "trn/common/cpu_binding.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/error.hpp"
#include "trn/common/node_name.hpp"
#include "trn/common/process.hpp"
#include "trn/common/unique_fd.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/run/launch_step_facts.hpp"

namespace trn::launcher {
namespace {

// After a task fails the others get this long to fail alike (the same error on every rank is
// the user's, docs/recovery.md) before they are ended; then SIGTERM, and SIGKILL after kKillWait
// (srun's KillWait is 30 s by default; trn-run stops a step within 1 s after its own SIGINTs).
constexpr auto kCancelAfter = std::chrono::seconds(1);
constexpr auto kKillWait = std::chrono::seconds(5);

struct WorkerOptions {
  unsigned tasks = 1;
  run::LaunchEnvironment launch;
  std::string fsroot = "/";
  std::string output;  // "": our own stdout
  bool label = false;
  std::vector<std::string> command;
};

// A range-checked count given as --name=N.
unsigned count_option(const std::string& name, const std::string& text, unsigned low,
                      unsigned high) {
  return static_cast<unsigned>(parse_whole_number_in(text, "node-workers " + name, low, high));
}

WorkerOptions parse_worker_options(const std::vector<std::string>& args) {
  WorkerOptions options;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const auto& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (!arg.starts_with("--")) break;  // the command
    const auto equals = arg.find('=');
    const auto name = arg.substr(0, equals);
    const auto value = equals == std::string::npos ? std::string() : arg.substr(equals + 1);
    if (name == "--label") {
      options.label = true;
    } else if (name == "--kill-on-bad-exit") {  // always: as srun's --kill-on-bad-exit=1
    } else if (name == "--output") {
      options.output = value;
    } else if (name == "--tasks") {
      options.tasks = count_option(name, value, 1, 1024);
    } else if (name == "--nodes") {
      options.launch.nodes = count_option(name, value, 1, 65536);
    } else if (name == "--node-rank") {
      options.launch.node_rank = count_option(name, value, 0, 65535);
    } else if (name == "--main-host") {
      options.launch.main_host = value;
    } else if (name == "--fsroot") {
      options.fsroot = value;
    } else {
      throw Error("node-workers: unknown option " + arg);
    }
  }
  options.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (options.command.empty()) throw Error("node-workers: no command to start");
  if (options.launch.node_rank >= options.launch.nodes) {
    throw Error("node-workers: --node-rank " + std::to_string(options.launch.node_rank) +
                " is not below --nodes " + std::to_string(options.launch.nodes));
  }
  return options;
}

// Every task of this node, as spank_trn would set them up under srun.
std::vector<TaskSetup> node_task_setups(const WorkerOptions& options, const std::string& node) {
  NodeStep step;
  step.fsroot = options.fsroot;
  step.facts = run::launch_step_facts(options.launch, options.tasks, node);
  step.command = options.command;
  std::vector<taskenv::TaskIds> tasks;
  for (unsigned local = 0; local < options.tasks; ++local)
    tasks.push_back({local, step.facts.node_id * options.tasks + local});
  return task_setups(step, tasks, "trn-run");
}

volatile std::sig_atomic_t g_user1 = 0;
volatile std::sig_atomic_t g_stops = 0;

extern "C" void on_signal(int signal) {
  if (signal == SIGUSR1)
    g_user1 = 1;
  else
    g_stops = g_stops + 1;
}

void catch_signals() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGUSR1, SIGINT, SIGTERM}) ::sigaction(signal, &action, nullptr);
}

struct Task {
  int pid = -1;
  int status = -1;  // -1 while running
  UniqueFd output;  // read end of its stdout/stderr pipe
  std::string pending;
  unsigned rank = 0;
};

// Starts `command` with `setup`: its output into a pipe, bound to its CPUs (the child inherits
// the mask set around the spawn).
Task start_task(const std::vector<std::string>& command, const TaskSetup& setup) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0)
    throw Error(std::string("cannot make a pipe for a worker: ") + std::strerror(errno));
  Task task;
  task.output = UniqueFd(ends[0]);
  UniqueFd write_end(ends[1]);
  cpu_set_t ours;
  const bool saved = ::sched_getaffinity(0, sizeof ours, &ours) == 0;
  if (setup.cpus) bind_task_to_cpus(*setup.cpus);
  try {
    task.pid = start_process(command, {.extra_env = setup.env, .output_fd = write_end.get()});
  } catch (...) {
    if (setup.cpus && saved) ::sched_setaffinity(0, sizeof ours, &ours);
    throw;
  }
  if (setup.cpus && saved) ::sched_setaffinity(0, sizeof ours, &ours);
  task.rank = setup.rank;
  return task;
}

class LabelledOutput {
 public:
  LabelledOutput(const std::string& path, bool label) : label_(label) {
    if (!path.empty()) {
      file_.open(path, std::ios::app);
      if (!file_) throw Error("node-workers: cannot write " + path);
    }
  }

  // Moves what the task wrote since the last call to the output, whole lines only unless
  // `flush`; false once the pipe is closed.
  bool take(Task& task, bool flush) {
    char buffer[1 << 14];
    bool open = task.output.get() >= 0;
    while (open) {
      pollfd ready{task.output.get(), POLLIN, 0};
      if (::poll(&ready, 1, 0) <= 0) break;
      const ssize_t got = ::read(task.output.get(), buffer, sizeof buffer);
      if (got <= 0) {
        task.output = UniqueFd();
        open = false;
        break;
      }
      task.pending.append(buffer, static_cast<std::size_t>(got));
    }
    std::size_t newline = 0;
    while ((newline = task.pending.find('\n')) != std::string::npos) {
      write_line(task.rank, std::string_view(task.pending).substr(0, newline));
      task.pending.erase(0, newline + 1);
    }
    if (flush && !task.pending.empty()) {
      write_line(task.rank, task.pending);
      task.pending.clear();
    }
    out().flush();
    return open;
  }

  // The line slurmstepd writes when it cancels a step, so that the failure diagnosis reads
  // the same output under either starter.
  void cancelled(unsigned rank, const std::string& node, int status) {
    write_line(rank, "*** STEP ON " + node + " CANCELLED: task " + std::to_string(rank) +
                         " exited with status " + std::to_string(status) +
                         " (trn-launcher node-workers) ***");
    out().flush();
  }

 private:
  std::ostream& out() { return file_.is_open() ? static_cast<std::ostream&>(file_) : std::cout; }
  void write_line(unsigned rank, std::string_view line) {
    if (label_) out() << rank << ": ";
    out() << line << '\n';
  }
  bool label_;
  std::ofstream file_;
};

void signal_all(std::vector<Task>& tasks, int signal) {
  for (const auto& task : tasks) {
    if (task.status < 0) ::kill(task.pid, signal);
  }
}

}  // namespace

int node_workers_command(const std::vector<std::string>& args) {
  const auto options = parse_worker_options(args);
  const auto node = this_node_name();
  const auto setups = node_task_setups(options, node);
  std::string output = options.output;
  for (std::size_t at = 0; (at = output.find("%N", at)) != std::string::npos;)
    output.replace(at, 2, node);
  LabelledOutput out(output, options.label);
  catch_signals();
  std::vector<Task> tasks;
  for (const auto& setup : setups) {
    try {
      tasks.push_back(start_task(options.command, setup));
    } catch (const Error&) {
      signal_all(tasks, SIGKILL);
      throw;
    }
  }
  int first_failure = 0;
  unsigned failed_rank = 0;
  int stops_seen = 0;
  using Clock = std::chrono::steady_clock;
  constexpr auto kNever = Clock::time_point::max();
  auto cancel_at = kNever;  // end the others: a task failed
  auto kill_at = kNever;    // SIGKILL what is left
  std::vector<pollfd> ready;
  for (;;) {
    ready.clear();
    for (const auto& task : tasks) {
      if (task.output.get() >= 0) ready.push_back({task.output.get(), POLLIN, 0});
    }
    if (!ready.empty()) ::poll(ready.data(), ready.size(), 100);
    bool running = false;
    for (auto& task : tasks) {
      if (task.status < 0) task.status = wait_process(task.pid, /*block=*/false);
      out.take(task, /*flush=*/false);
      if (task.status < 0) running = true;
      if (task.status > 0 && first_failure == 0) {
        first_failure = task.status;
        failed_rank = task.rank;
        cancel_at = Clock::now() + kCancelAfter;
      }
    }
    if (running && Clock::now() >= cancel_at) {
      out.cancelled(failed_rank, node, first_failure);
      signal_all(tasks, SIGTERM);  // srun --kill-on-bad-exit: the step ends with its task
      cancel_at = kNever;
      kill_at = Clock::now() + kKillWait;
    }
    if (g_user1) {
      g_user1 = 0;
      signal_all(tasks, SIGUSR1);
    }
    if (g_stops > stops_seen) {
      stops_seen = g_stops;
      signal_all(tasks, stops_seen == 1 ? SIGTERM : SIGKILL);
      if (stops_seen == 1) kill_at = Clock::now() + kKillWait;
    }
    if (Clock::now() >= kill_at) {
      signal_all(tasks, SIGKILL);
      kill_at = kNever;
    }
    // Done when every task has exited: a worker's own children may hold the pipe open.
    if (!running) break;
    if (ready.empty()) ::usleep(100 * 1000);
  }
  for (auto& task : tasks) out.take(task, /*flush=*/true);
  return first_failure;
}

}  // namespace trn::launcher
