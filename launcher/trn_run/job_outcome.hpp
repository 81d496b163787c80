#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "trn/plan/plan.hpp"
#include "trn/run/failure_diagnosis.hpp"
#include "trn/run/slurm_allocation.hpp"

namespace trn::launcher {

// results.json gets the plan, what each phase took and the forecast against what the run
// measured (the trainer wrote the rest).
void write_results(const plan::Plan& plan, const nlohmann::json& phases,
                   const std::optional<nlohmann::json>& forecast);

// After a failure that in-job recovery cannot handle: requeue the job (run::decide_after_failure
// says whether) and release Slurm's hold on the requeued job where Slurm lets us; trn-run's
// exit code.
int requeue_or_fail(const plan::Plan& plan, const run::SlurmAllocation& allocation,
                    const run::FailureDiagnosis& diagnosis);

}  // namespace trn::launcher
