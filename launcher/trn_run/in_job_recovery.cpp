#include "in_job_recovery.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <thread>

#include "common/exit_codes.hpp"
#include "common/node_drain.hpp"
#include "health_gate.hpp"
#include "job_outcome.hpp"
#include "node_probe.hpp"
#include "step_nodes.hpp"
#include "step_setup.hpp"
#include "train_phase.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/process.hpp"
#include "trn/health/check_result.hpp"
#include "trn/plan/plan_report.hpp"
#include "trn/plan/task_command.hpp"
#include "trn/run/spare_swap.hpp"

namespace trn::launcher {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// Why the step ended, and the nodes to take out of the job (drained with their reason).
struct Failure {
  std::string cause;  // node failure, node lost, hang, straggler, failure
  std::vector<std::pair<std::string, std::string>> nodes;  // node, drain reason
  std::string summary;  // what happened, when the ranks' diagnosis does not say it
};

// `node` with its drain reason: a failed runtime check saying `what`.
std::pair<std::string, std::string> runtime_failure(const std::string& node,
                                                    const std::string& what) {
  const health::CheckResult check{"runtime", health::CheckStatus::kFailed, what, 0};
  return {node, health::drain_reason(check)};
}

// The nodes of the plan that no longer answer, after `step` (the compile or training step)
// failed: which node does not answer a one-task step says it, without waiting for Slurm to mark
// it down. None when every node answers.
std::optional<Failure> lost_nodes(const TrainingJob& job, const std::string& step) {
  const auto lost = unresponsive_nodes(job.plan.node_list, ProbeLimits{});
  if (lost.empty()) return std::nullopt;
  Failure failure;
  failure.cause = "node lost";
  for (const auto& node : lost)
    failure.nodes.push_back(
        runtime_failure(node, "lost: did not answer after the " + step + " step failed"));
  failure.summary = "node(s) " + joined(lost) + " lost";
  return failure;
}

Failure find_failed_nodes(const TrainOutcome& outcome, const TrainingJob& job) {
  Failure failure;
  const auto add = [&](const std::string& node, const std::string& what) {
    failure.nodes.push_back(runtime_failure(node, what));
  };
  if (outcome.stopped == StopReason::kStraggler) {
    failure.cause = "straggler";
    add(outcome.straggler_replaced, "straggler: computes over 1.15x the median node's time");
    failure.summary = "node " + outcome.straggler_replaced + " straggles";
    return failure;
  }
  if (!outcome.diagnosis.failed_node.empty()) {  // a rank printed a Neuron hardware status
    failure.cause = "node failure";
    add(outcome.diagnosis.failed_node, outcome.diagnosis.node_evidence);
    return failure;
  }
  if (outcome.stopped == StopReason::kHang && !outcome.verdict.stuck_nodes.empty()) {
    failure.cause = "hang";
    const auto& verdict = outcome.verdict;
    for (const auto& node : verdict.stuck_nodes) {
      add(node, "hang: rank(s) on it never reached the all-reduce after step " +
                    std::to_string(verdict.stuck_step));
    }
    failure.summary =
        "no step completed for " + std::to_string(static_cast<long>(verdict.stalled_s)) +
        " s after step " + std::to_string(verdict.stuck_step) +
        (verdict.stuck_nodes.empty() ? "" : " (stuck: " + joined(verdict.stuck_nodes) + ")");
    return failure;
  }
  // A lost node: its ranks went silent, the others failed talking to them (or wait for them:
  // a hang that names no node).
  if (auto lost = lost_nodes(job, "training")) return *lost;
  failure.cause = outcome.stopped == StopReason::kHang ? "hang" : "failure";
  if (outcome.stopped == StopReason::kHang) {
    failure.summary = outcome.verdict.in_startup
                          ? "the restarted step's ranks were not all started within " +
                                std::to_string(static_cast<long>(outcome.verdict.deadline_s)) + " s"
                          : "no step completed for " +
                                std::to_string(static_cast<long>(outcome.verdict.stalled_s)) +
                                " s after step " + std::to_string(outcome.verdict.stuck_step);
  }
  if (job.health_check) {
    // A NEURON_HW_ERR on a node since the gate makes the failure that node's, whatever the
    // ranks printed (the same error on every rank looks like a user error).
    std::vector<NodeFacts> in_plan;
    for (const auto& node : job.nodes) {
      if (std::find(job.plan.node_list.begin(), job.plan.node_list.end(), node.node) !=
          job.plan.node_list.end())
        in_plan.push_back(node);
    }
    const auto gate = run_health_gate(job.layout->bin_dir / "trn-health", in_plan, job.fsroot,
                                      srun_node_selection(job.plan));
    for (const auto& sick : gate.unhealthy) failure.nodes.emplace_back(sick.node, sick.reason);
    if (!gate.unhealthy.empty()) {
      failure.cause = "node failure";
      failure.summary = "node " + gate.unhealthy.front().node +
                        " is unhealthy after the failure (" + gate.unhealthy.front().reason + ")";
    }
  }
  return failure;
}

// The plan on `nodes` (the same count as before: the world keeps its size and shape).
plan::Plan replan(const TrainingJob& job, const run::NodeSwap& swap,
                  const std::vector<std::string>& drained) {
  std::vector<plan::NodeCores> cores;
  for (const auto& name : swap.nodes) {
    const auto it = std::find_if(job.nodes.begin(), job.nodes.end(),
                                 [&](const NodeFacts& facts) { return facts.node == name; });
    cores.push_back({name, it->neuron_cores});
  }
  auto request = job.request;
  request.cluster = plan::cluster_shape_of(cores, job.allocation->job_id);
  request.cluster.instance_type = job.request.cluster.instance_type;
  request.continues_run = true;
  auto plan = plan::make_plan(*job.profile, request);
  plan.spare_nodes = swap.spares;
  plan.excluded_nodes = job.plan.excluded_nodes;
  plan.excluded_nodes.insert(plan.excluded_nodes.end(), drained.begin(), drained.end());
  return plan;
}

nlohmann::json straggler_records(const std::vector<run::Straggler>& stragglers) {
  auto records = nlohmann::json::array();
  for (const auto& s : stragglers)
    records.push_back({{"node", s.node}, {"ratio", s.ratio}, {"window", s.window}});
  return records;
}

// Drains each of `failure`'s nodes with its reason, saying so; returns their names.
std::vector<std::string> drain_failed(const Failure& failure) {
  std::vector<std::string> failed;
  for (const auto& [node, reason] : failure.nodes) {
    std::string message;
    const bool drained = drain_node(node, reason, message);
    std::cerr << "trn-run: " << node << " failed (" << reason << "); "
              << (drained ? "drained" : message) << '\n';
    failed.push_back(node);
  }
  return failed;
}

// "lost -> spare, ..." for the job's log and results.json.
std::string replaced_text(const run::NodeSwap& swap) {
  std::string replaced;
  for (const auto& [lost, spare] : swap.replaced) {
    if (!replaced.empty()) replaced += ", ";
    replaced.append(lost).append(" -> ").append(spare);
  }
  return replaced;
}

// The job on `swap`'s nodes: planned again, and the spares swapped in pull the shared tier's
// graphs into their node-local tier (the pull's report; null when no spare came in).
nlohmann::json move_to_nodes(TrainingJob& job, const run::NodeSwap& swap,
                             const std::vector<std::string>& failed) {
  job.plan = replan(job, swap, failed);
  if (swap.replaced.empty()) return nullptr;
  auto pull = job.cache;
  pull.plan = &job.plan;
  pull.env = step_environment(job.plan, *job.layout);
  pull.overlap = true;
  // Only the spares lack the graphs: each node's own pull reads what it lacks, where a spread
  // would send the whole tier through every node again.
  pull.spread_tree = false;
  return pull_cache(pull);
}

// What requeue_or_fail is told when nodes failed and no spare or restart is left.
run::FailureDiagnosis nodes_failed(run::FailureDiagnosis diagnosis, const Failure& failure,
                                   const std::vector<std::string>& failed, const TrainingJob& job,
                                   bool swapped) {
  if (failed.empty()) return diagnosis;
  diagnosis.kind = run::FailureKind::kNodeFailure;
  if (diagnosis.failed_node.empty()) diagnosis.failed_node = failed.front();
  if (!failure.summary.empty()) diagnosis.summary = failure.summary;
  if (job.plan.spares_wanted > 0)
    diagnosis.summary += swapped ? "; no in-job restart left" : "; no spare node left";
  return diagnosis;
}

// The job's allocation with every in-job restart so far counted in (the compile phase's and
// `training_restarts`): in-job restarts and requeues share max_restarts, and the requeue
// decision counts them all.
run::SlurmAllocation restarts_counted(const TrainingJob& job, unsigned training_restarts) {
  auto counted = *job.allocation;
  counted.restart_count += job.compile_restarts + training_restarts;
  return counted;
}

// An interrupted compile leaves its *.lock files in the node-local tier, and the next compile of
// those graphs would wait on them for ever (docs/hardware.md#compile-cache). After a compile
// step that lost a node nothing of it compiles any more, so every lock on the nodes about to
// compile is stale: trn-cache clears them, asked again while the old step's last processes end.
void clear_stale_locks(const CompileRequest& request) {
  auto argv = one_task_per_node(request);
  argv.insert(argv.end(), {request.trn_cache.string(), "clear-locks", "--root",
                           request.tiers.local.string(), "--older-than", "0s", "--missing-ok"});
  constexpr int tries = 10;
  for (int attempt = 1;; ++attempt) {
    const int status = run_process(argv, {.extra_env = request.env});
    if (status == 0) return;
    if (attempt == tries) {
      std::cout << "trn-run: warning: stale compile-cache locks not cleared (exit " << status
                << "); a graph locked by the lost step may wait for its lock\n";
      return;
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

std::optional<int> compile_with_recovery(TrainingJob& job, nlohmann::json& phases,
                                         bool compile_only) {
  for (unsigned attempt = 0;; ++attempt) {
    auto request = job.cache;
    request.plan = &job.plan;
    if (attempt == 0) {
      phases["cache_pull"] = pull_cache(request);
    } else {
      request.env = step_environment(job.plan, *job.layout);
      request.overlap = true;  // the lost step may hold the surviving nodes a while longer
      clear_stale_locks(request);
    }
    const auto compiled = compile_phase(request);
    phases["compile"] = compiled.report;
    if (compiled.ok) return compile_only ? std::optional<int>(kSuccess) : std::nullopt;
    const auto detected = std::chrono::steady_clock::now();
    // A node lost while it compiled fails the step as a compiler would: which node does not
    // answer tells them apart. Failed graphs are the configuration's, on any node.
    auto failure = lost_nodes(job, "compile");
    if (!failure) {
      std::cerr << "trn-run: " << compiled.message << "; not training\n";
      return kCompileFailed;
    }
    failure->summary += " in the compile phase";
    const auto failed = drain_failed(*failure);
    const auto swap = run::swap_in_spares(node_names(job.nodes), job.plan.node_list,
                                          job.plan.spare_nodes, failed);
    const auto counted = restarts_counted(job, 0);
    if (!swap || static_cast<std::int64_t>(counted.restart_count) >= job.plan.max_restarts) {
      return requeue_or_fail(job.plan, counted,
                             nodes_failed({}, *failure, failed, job, swap.has_value()));
    }
    const auto replaced = replaced_text(*swap);
    const auto cache_pull = move_to_nodes(job, *swap, failed);
    std::cout << "trn-run: node lost in the compile phase on " << joined(failed) << "; replaced "
              << replaced << " (" << swap->spares.size() << " spare(s) left); compiling again\n"
              << std::flush;
    auto recoveries = phases.value("recoveries", nlohmann::json::array());
    recoveries.push_back({{"cause", failure->cause},
                          {"phase", "compile"},
                          {"nodes", failed},
                          {"replaced", replaced},
                          {"restart_s", seconds_since(detected)}});
    if (!cache_pull.is_null()) recoveries.back()["cache_pull"] = cache_pull;
    phases["recoveries"] = recoveries;
    job.compile_restarts = attempt + 1;
  }
}

int train_with_recovery(TrainingJob& job, nlohmann::json& phases,
                        std::chrono::steady_clock::time_point started) {
  // The compile phase's recoveries come first.
  auto recoveries = phases.value("recoveries", nlohmann::json::array());
  auto stragglers = nlohmann::json::array();
  const auto train_started = std::chrono::steady_clock::now();
  // The recovery in progress: completed once the restarted step completes its first step.
  std::optional<std::size_t> pending;
  // A restart starts from cached graphs: its ranks get twice the first start's time to their
  // first step, plus the hang timeout, to start; the first start is not limited (it may compile).
  double startup_limit_s = 0;
  for (unsigned attempt = 0;; ++attempt) {
    auto step = training_step(job.plan, *job.layout, attempt, startup_limit_s);
    if (job.plan.replace_stragglers && !job.plan.spare_nodes.empty()) {
      step.replace_straggler = [](const run::Straggler&) { return true; };
    }
    std::cout << "trn-run: training"
              << (attempt ? " (restart " + std::to_string(attempt) + ")" : "") << ": "
              << plan::display_command(step.command) << '\n'
              << std::flush;
    step.command.insert(step.command.begin(), job.cache.task_prefix.begin(),
                        job.cache.task_prefix.end());
    const auto step_started = std::chrono::steady_clock::now();
    const auto outcome = run_train_step(step);
    // When each training step's srun started, for a rank's start-up and first heartbeat measured
    // on its own clock (bench/cluster/control_plane.sh).
    auto step_starts = phases.value("train_step_started_unix", nlohmann::json::array());
    step_starts.push_back(outcome.started_unix);
    phases["train_step_started_unix"] = step_starts;
    if (attempt == 0 && outcome.first_step_done_s) {
      startup_limit_s =
          2 * *outcome.first_step_done_s + static_cast<double>(job.plan.hang_timeout_s);
    }
    for (const auto& record : straggler_records(outcome.stragglers)) stragglers.push_back(record);
    if (pending) {
      auto& record = recoveries[*pending];
      // false: the restarted step failed before all its ranks started (the next record says why).
      record["resumed"] = outcome.first_step >= 0;
      if (outcome.first_step >= 0) {
        record["resumed_from_step"] = outcome.first_step;
        record["steps_redone"] = std::max(0L, record["last_step"].get<long>() - outcome.first_step);
      }
      if (outcome.first_step_done_s) record["first_step_s"] = *outcome.first_step_done_s;
      pending.reset();
    }
    phases["train_seconds"] = seconds_since(train_started);
    phases["restart_count"] = job.allocation->restart_count;
    phases["recoveries"] = recoveries;
    phases["stragglers"] = stragglers;
    if (outcome.status == 0 && outcome.stopped == StopReason::kNone) {
      write_results(job.plan, phases, job.forecast);
      std::cout << "trn-run: done in " << seconds_since(started) << " s; results in "
                << (job.plan.run_dir / "results.json").string() << '\n';
      return kSuccess;
    }
    const auto detected = std::chrono::steady_clock::now();
    auto diagnosis = outcome.diagnosis;
    // Slurm refused the step, or the run directory is full: the job's configuration or its
    // storage, never a node to probe or drain.
    if (diagnosis.kind == run::FailureKind::kStepRefused ||
        diagnosis.kind == run::FailureKind::kRunDirectoryFull)
      return requeue_or_fail(job.plan, *job.allocation, diagnosis);
    const auto failure = find_failed_nodes(outcome, job);
    if (failure.nodes.empty() && diagnosis.kind == run::FailureKind::kUserError &&
        outcome.stopped != StopReason::kHang)
      return requeue_or_fail(job.plan, *job.allocation, diagnosis);
    const auto drain_started = std::chrono::steady_clock::now();
    const auto failed = drain_failed(failure);
    const double drain_s = seconds_since(drain_started);
    const auto swap = run::swap_in_spares(node_names(job.nodes), job.plan.node_list,
                                          job.plan.spare_nodes, failed);
    const auto counted = restarts_counted(job, attempt);
    if (!swap || static_cast<std::int64_t>(counted.restart_count) >= job.plan.max_restarts) {
      return requeue_or_fail(job.plan, counted,
                             nodes_failed(diagnosis, failure, failed, job, swap.has_value()));
    }
    const auto replaced = replaced_text(*swap);
    const auto cache_pull = move_to_nodes(job, *swap, failed);
    std::cout << "trn-run: " << failure.cause << (failed.empty() ? "" : " on " + joined(failed))
              << (replaced.empty() ? "; restarting on the same nodes" : "; replaced " + replaced)
              << " (" << swap->spares.size()
              << " spare(s) left); training again from the newest checkpoint\n"
              << std::flush;
    recoveries.push_back(
        {{"cause", failure.cause},
         {"nodes", failed},
         {"replaced", replaced},
         {"detected_after_s", outcome.detected_s},
         // From the silent ranks' last heartbeat to the watchdog's finding.
         {"detection_s",
          outcome.last_beat_unix > 0 ? outcome.detected_unix - outcome.last_beat_unix : 0.0},
         {"step_ran_s", std::chrono::duration<double>(detected - step_started).count()},
         {"find_s", std::chrono::duration<double>(drain_started - detected).count()},
         {"drain_s", drain_s},
         {"restart_s", seconds_since(detected)},
         {"last_step", outcome.last_step}});
    if (!cache_pull.is_null()) recoveries.back()["cache_pull"] = cache_pull;
    if (!outcome.verdict.first_error.empty())
      recoveries.back()["error"] = outcome.verdict.first_error;
    pending = recoveries.size() - 1;
  }
}

}  // namespace trn::launcher
