#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

// Reading a neuron_parallel_compile run (docs/hardware.md#neuron-parallel-compile). It prints,
// through its logger ("<time>: <pid> INFO ||NEURON_PARALLEL_COMPILE||: ..."):
//   Total graphs: N / Total successful compilations: N / Total failed compilations: N
// or "No todo hlos found ..." when nothing is left to compile, and exits with the number of
// failed compilations (so 256 failures exit 0) or 1 when the training script failed.
namespace trn::cache {

struct NpcSummary {
  std::optional<std::uint64_t> total_graphs;
  std::optional<std::uint64_t> successful;
  std::optional<std::uint64_t> failed;
  bool no_todo_hlos = false;
  bool training_script_failed = false;  // "There was an error in the training script."
};

// The last value printed for each line wins (a run prints one summary; a log holding several
// runs ends with the newest).
NpcSummary parse_npc_output(std::string_view output);

// Whether one node's neuron_parallel_compile ran to its end: it printed its summary, that nothing
// was left to compile, or that the training script failed. A node lost mid-compile printed none
// of them, and srun need not say so: in a job that keeps running without a lost node (trn-run's
// --no-kill) the step's exit is that of the tasks left.
bool npc_run_ended(const NpcSummary& summary);

enum class CompileOutcome {
  kCompiled,          // every graph compiled (or exit 0 without a summary)
  kNothingToCompile,  // "No todo hlos found": the cache already held every graph
  kCompileFailed,     // at least one graph failed (the summary says so, whatever the exit)
  kScriptFailed,      // the training script failed under it; nothing was compiled
  kFailedOtherwise,   // any other non-zero exit or a signal (bad option, crash)
};

std::string_view to_string(CompileOutcome outcome);  // "compiled", "compile_failed", ...

struct CompileResult {
  CompileOutcome outcome = CompileOutcome::kFailedOtherwise;
  int exit_status = 0;  // as given: the exit code, or -N for "killed by signal N"
  NpcSummary summary;
  std::string message;  // one line for the user, naming what failed and what to do

  bool ok() const {
    return outcome == CompileOutcome::kCompiled || outcome == CompileOutcome::kNothingToCompile;
  }
};

// exit_status: the exit code (0-255), or -N when a signal N ended it.
CompileResult interpret_npc_run(std::string_view output, int exit_status);

// {"outcome": "compiled", "ok": true, "exit_status": 0, "total_graphs": N | null,
//  "successful": N | null, "failed": N | null, "no_todo_hlos": false, "message": "..."}
nlohmann::json to_json(const CompileResult& result);

}  // namespace trn::cache
