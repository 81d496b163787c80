#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <vector>

#include <nlohmann/json.hpp>

#include "trn/plan/plan.hpp"

namespace trn::launcher {

struct CacheTiers {
  std::optional<std::filesystem::path> shared;  // e.g. /fsx/neuron-cache; none: no pull/push
  std::filesystem::path local;                  // the compiler's cache on each node
};

// The shared tier given (empty: none), else TRN_CACHE_SHARED; the local tier as the compiler
// finds it.
CacheTiers cache_tiers(const std::optional<std::string>& shared_option);

struct CompileRequest {
  const plan::Plan* plan = nullptr;
  // The compile command with its paths left as placeholders: run and data folders change from
  // job to job, compiled graphs do not.
  std::vector<std::string> identity_command;
  CacheTiers tiers;
  std::filesystem::path launcher;  // trn-launcher, for the per-node agents
  std::filesystem::path trn_cache;
  std::map<std::string, std::string> env;
  bool force = false;
};

// Phase 1: every node copies complete entries from the shared tier. Returns the JSON report.
nlohmann::json pull_cache(const CompileRequest& request);

struct CompilePhaseResult {
  bool ok = true;
  nlohmann::json report;  // also written to <run_dir>/compile.json when a compile ran
  std::string message;    // for the user when !ok
};

// Phase 2: neuron_parallel_compile on every node (one agent per node), unless absent or the
// shared tier's manifest records this exact configuration; then push new entries.
CompilePhaseResult compile_phase(const CompileRequest& request);

// The per-node agent (srun trn-compile inside a step): runs neuron_parallel_compile around this
// node's workers and returns its exit status.
int compile_agent(std::int64_t workers_per_node, const std::vector<std::string>& command,
                  const std::map<std::string, std::string>& env);

}  // namespace trn::launcher
