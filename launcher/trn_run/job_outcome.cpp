#include "job_outcome.hpp"

#include <fstream>
#include <iostream>

#include "common/exit_codes.hpp"
#include "plan_forecast.hpp"
#include "trn/common/process.hpp"
#include "trn/common/text_file.hpp"
#include "trn/plan/plan_report.hpp"
#include "trn/run/requeue_decision.hpp"

namespace trn::launcher {

void write_results(const plan::Plan& plan, const nlohmann::json& phases,
                   const std::optional<nlohmann::json>& forecast) {
  const auto file = plan.run_dir / "results.json";
  nlohmann::json results = nlohmann::json::object();
  if (std::ifstream in(file); in) {
    try {
      results = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception&) {
      std::cerr << "trn-run: warning: the trainer's " << file
                << " is not valid JSON; rewriting it\n";
    }
  }
  results["plan"] = plan::to_json(plan);
  results["phases"] = phases;
  if (forecast) results["forecast"] = forecast_vs_measured(*forecast, results);
  write_file_atomically(file, results.dump(2) + "\n", 0644);
}

namespace {

// Slurm holds a requeued batch job for about two minutes (Reason=BeginTime) before it may run
// again. The hold can only be lifted once the job is pending, that is after this batch script
// has ended, so a helper outlives it: started in a session of its own (setsid --fork), it waits
// for the job to be pending and sets StartTime=now - which Slurm allows operators and root, and
// only where the job's process tracking lets the helper live on (proctrack/linuxproc; not
// proctrack/cgroup). What it did goes to `log`.
void release_requeue_hold(std::uint32_t job_id, const std::filesystem::path& log) {
  const auto id = std::to_string(job_id);
  const std::string script =
      "for i in $(seq 120); do sleep 0.5; s=$(scontrol show job -o " + id +
      " 2>/dev/null) || exit 0; case \"$s\" in *JobState=PENDING*) case \"$s\" in "
      "*Reason=BeginTime*) scontrol update JobId=" +
      id + " StartTime=now && echo \"released job " + id +
      " from Slurm's requeue hold\" || echo \"job " + id +
      ": Slurm did not let this user lift the requeue hold\"; exit 0;; esac;; esac; done";
  ProcessOptions options;
  options.stdin_dev_null = true;
  try {
    const int pid = start_process(
        {"setsid", "--fork", "sh", "-c", script + " >>'" + log.string() + "' 2>&1"}, options);
    wait_process(pid);  // setsid --fork returns at once; the helper runs on
    std::cerr << "trn-run: asked to release job " << id << " from Slurm's requeue hold as soon as "
              << "it is pending (" << log.string() << ")\n";
  } catch (const std::exception& error) {
    std::cerr << "trn-run: cannot start the helper that releases the requeue hold: " << error.what()
              << '\n';
  }
}

}  // namespace

// The decision is core's (run::decide_after_failure); asking Slurm is what is left here.
int requeue_or_fail(const plan::Plan& plan, const run::SlurmAllocation& allocation,
                    const run::FailureDiagnosis& diagnosis) {
  const auto decision =
      run::decide_after_failure({diagnosis, plan.requeue, allocation.job_id,
                                 allocation.restart_count, plan.max_restarts, plan.run_dir});
  std::cerr << decision.message;
  switch (decision.action) {
    case run::AfterFailure::kFailUserError:
      return kUserError;
    case run::AfterFailure::kFailNodeFailure:
      return kNodeFailure;
    case run::AfterFailure::kFailStepRefused:
    case run::AfterFailure::kFailRunDirectoryFull:
      return kBadInput;
    case run::AfterFailure::kRequeue:
      break;
  }
  const int status = run_process({"scontrol", "requeue", std::to_string(allocation.job_id)});
  if (status != 0) {
    std::cerr << "trn-run: scontrol requeue failed (exit " << status << ")\n";
  } else {
    release_requeue_hold(allocation.job_id, plan.run_dir / "logs" / "requeue_hold.log");
  }
  return kRequeued;
}

}  // namespace trn::launcher
