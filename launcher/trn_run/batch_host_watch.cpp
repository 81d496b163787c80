// The batch host's watcher (docs/recovery.md#batch-host): the judgement is core's
// (trn/run/batch_host_watch.hpp); asking Slurm and acting on the answer is what is left here.
#include "batch_host_watch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "common/exit_codes.hpp"
#include "common/slurm_hostnames.hpp"
#include "job_outcome.hpp"
#include "trn/common/error.hpp"
#include "trn/common/node_name.hpp"
#include "trn/common/process.hpp"
#include "trn/run/batch_host_watch.hpp"

namespace trn::launcher {
namespace {

namespace po = boost::program_options;

constexpr auto kSlurmAnswer = std::chrono::seconds(10);

// What `argv` printed, when it answered in time and succeeded; nullopt is no evidence.
std::optional<std::string> ask_slurm(const std::vector<std::string>& argv) {
  ProcessOptions options;
  options.stdin_dev_null = true;
  options.stderr_to = StderrTo::kDevNull;
  options.timeout = kSlurmAnswer;
  try {
    auto answer = capture_process(argv, options);
    if (answer.timed_out || answer.status != 0) return std::nullopt;
    return std::move(answer.output);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// The job lost its batch host: trn-run's own decision after a node failure, taken here.
int end_job_without_its_batch_host(const plan::Plan& plan, const run::SlurmAllocation& job,
                                   const std::string& batch_host) {
  run::FailureDiagnosis lost;
  lost.summary = "the batch host " + batch_host +
                 ", where trn-run ran, left the job (a lost node): the batch script died with it";
  lost.failed_node = batch_host;
  std::cout << "trn-run (watching from " << this_node_name() << "): " << lost.summary << '\n';
  const int status = requeue_or_fail(plan, job, lost);
  if (status == kRequeued) return kSuccess;
  // Without a requeue the job must still end: nothing runs its batch script any more.
  std::cout << "trn-run: cancelling job " << job.job_id << " so that its other nodes are freed\n"
            << std::flush;
  return run_process({"scancel", std::to_string(job.job_id)}) == 0 ? kSuccess : kNodeFailure;
}

constexpr unsigned kWatcherStarts = 5;  // a watcher that keeps ending is a problem to report
constexpr auto kBeforeRestart = std::chrono::seconds(5);

// The watcher's node: the job's last node other than the batch host, preferring one that is not
// `avoid` (where the previous watcher ended); empty for a one-node job.
std::string pick_watcher_node(const std::vector<std::string>& nodes, const std::string& batch_host,
                              const std::string& avoid) {
  std::string picked;
  for (const auto& node : nodes) {
    if (node != batch_host && (node != avoid || picked.empty())) picked = node;
  }
  return picked;
}

// Where srun's own messages for the watcher step go.
std::filesystem::path watcher_srun_log(const plan::Plan& plan) {
  return plan.run_dir / "logs" / "batch_host_watch.srun.log";
}

// Starts the watcher step on `node`; its pid, or -1 (said on stderr) when srun cannot start.
// srun's own messages (a refused or failed step) go to logs/batch_host_watch.srun.log.
int start_watcher_step(const std::string& node, const run::SlurmAllocation& allocation,
                       const std::string& batch_host, const plan::Plan& plan,
                       const InstallLayout& layout) {
  const auto log = watcher_srun_log(plan);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ProcessOptions options;
  options.stdin_dev_null = true;
  options.output_fd = fd;
  if (fd < 0) options.stderr_to = StderrTo::kDevNull;
  int pid = -1;
  try {
    // --overlap: it shares the node with every later step and holds none of its CPUs.
    pid = start_process({"srun",
                         "--overlap",
                         "--quiet",
                         "--nodes=1",
                         "--ntasks=1",
                         "--nodelist=" + node,
                         "--job-name=trn-batch-host-watch",
                         "--open-mode=append",
                         "--output=/dev/null",
                         (layout.bin_dir / "trn-launcher").string(),
                         "watch-batch-host",
                         "--job",
                         std::to_string(allocation.job_id),
                         "--batch-host",
                         batch_host,
                         "--requeue",
                         std::string(plan::to_string(plan.requeue)),
                         "--restart-count",
                         std::to_string(allocation.restart_count),
                         "--max-restarts",
                         std::to_string(plan.max_restarts),
                         "--run-dir",
                         plan.run_dir.string()},
                        options);
  } catch (const Error& error) {
    std::cerr << "trn-run: warning: cannot start the batch host's watcher on " << node << " ("
              << error.what() << "): losing " << batch_host
              << " would leave the job holding its nodes until its time limit\n";
  }
  if (fd >= 0) ::close(fd);
  return pid;
}

// What Slurm says of the job and its batch host now, with the nodes the job holds; nullopt when
// it did not answer in time (no evidence either way).
struct JobNow {
  run::BatchHostState state;
  std::vector<std::string> held;
};
std::optional<JobNow> ask_job_now(std::uint32_t job_id, const std::string& batch_host) {
  const auto line = ask_slurm({"scontrol", "show", "job", "-o", std::to_string(job_id)});
  const auto record = line ? run::parse_job_record(*line) : std::nullopt;
  if (!record) return std::nullopt;
  try {
    auto held = slurm_hostnames(record->node_list, kSlurmAnswer);
    const auto state = run::judge_batch_host(*record, batch_host, held);
    return JobNow{state, std::move(held)};
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Keeps a watcher running for as long as trn-run does: when the watcher's step ends while the
// job still runs with its batch host (its node was lost and replaced, or srun failed), a new one
// starts on another node the job holds. On its own thread, which waits for the step (the
// references are to the thread's own copies of its arguments, which live as long as it).
void keep_watching(std::string node, int pid, const run::SlurmAllocation& allocation,
                   const std::string& batch_host, const plan::Plan& plan,
                   const InstallLayout& layout) {
  for (unsigned started = 1;; ++started) {
    int status = 0;
    try {
      status = wait_process(pid);
    } catch (const Error&) {
      return;  // not ours to wait for any more
    }
    std::this_thread::sleep_for(kBeforeRestart);
    const auto now = ask_job_now(allocation.job_id, batch_host);
    // The job ended or left its batch host (or Slurm is silent): nothing to watch from here.
    if (!now || now->state != run::BatchHostState::kHeld) return;
    if (started >= kWatcherStarts) {
      std::cerr << "trn-run: warning: the batch host's watcher ended " << started << " times (see "
                << watcher_srun_log(plan).string() << "); losing " << batch_host
                << " would leave the job holding its nodes until its time limit\n";
      return;
    }
    const auto ended_on = node;
    node = pick_watcher_node(now->held, batch_host, ended_on);
    if (node.empty()) return;
    std::cerr << "trn-run: the batch host's watcher on " << ended_on << " ended (status " << status
              << "); watching again from " << node << '\n';
    pid = start_watcher_step(node, allocation, batch_host, plan, layout);
    if (pid < 0) return;
  }
}

}  // namespace

void start_batch_host_watch(const run::SlurmAllocation& allocation,
                            const std::vector<std::string>& job_nodes, const plan::Plan& plan,
                            const InstallLayout& layout) {
  const auto batch_host = this_node_name();
  const auto node = pick_watcher_node(job_nodes, batch_host, "");
  if (node.empty()) return;  // one node: Slurm requeues or ends the job itself
  std::filesystem::create_directories(plan.run_dir / "logs");
  const int pid = start_watcher_step(node, allocation, batch_host, plan, layout);
  if (pid < 0) return;
  std::cout << "trn-run: watching the batch host " << batch_host << " from " << node << '\n'
            << std::flush;
  std::thread(keep_watching, node, pid, allocation, batch_host, plan, layout).detach();
}

int watch_batch_host_command(const std::vector<std::string>& args) {
  po::options_description described("watch-batch-host options");
  std::uint32_t job_id = 0;
  std::string batch_host;
  std::string policy;
  unsigned restart_count = 0;
  std::int64_t max_restarts = 0;
  std::string run_dir;
  unsigned interval_ms = 2000;
  described.add_options()("job", po::value(&job_id)->required())(
      "batch-host", po::value(&batch_host)->required())("requeue", po::value(&policy)->required())(
      "restart-count", po::value(&restart_count)->required())("max-restarts",
                                                              po::value(&max_restarts)->required())(
      "run-dir", po::value(&run_dir)->required())("interval-ms", po::value(&interval_ms));
  po::variables_map values;
  try {
    po::store(po::command_line_parser(args).options(described).run(), values);
    po::notify(values);
  } catch (const po::error& error) {
    std::cerr << "trn-launcher watch-batch-host: " << error.what() << '\n';
    return kBadInput;
  }
  // Its own log: srun, which would carry the task's output, ran on the batch host and is gone
  // with it by the time there is anything to say.
  const auto log = std::filesystem::path(run_dir) / "logs" / "batch_host_watch.log";
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0) {
    std::cerr << "trn-launcher watch-batch-host: cannot write " << log.string() << '\n';
    return kBadInput;
  }
  ::close(fd);
  std::cout << std::unitbuf;
  plan::Plan plan;
  plan.requeue = plan::parse_requeue_policy(policy, "watch-batch-host --requeue");
  plan.max_restarts = max_restarts;
  plan.run_dir = run_dir;
  run::SlurmAllocation job;
  job.job_id = job_id;
  job.restart_count = restart_count;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
    const auto now = ask_job_now(job_id, batch_host);
    if (!now) continue;  // no answer: ask again
    switch (now->state) {
      case run::BatchHostState::kHeld:
        continue;
      case run::BatchHostState::kJobOver:
        return kSuccess;
      case run::BatchHostState::kLost:
        return end_job_without_its_batch_host(plan, job, batch_host);
    }
  }
}

}  // namespace trn::launcher
