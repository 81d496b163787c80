#include "trn/cache/npc_summary.hpp"

#include <cctype>
#include <charconv>

#include "trn/common/enum_names.hpp"

namespace trn::cache {

namespace {

// The number after `label` in `line`, if the line holds the label followed by digits.
std::optional<std::uint64_t> number_after(std::string_view line, std::string_view label) {
  const auto at = line.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  auto rest = line.substr(at + label.size());
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (error != std::errc() || end == rest.data()) return std::nullopt;
  return value;
}

void set_if(std::optional<std::uint64_t>& field, std::optional<std::uint64_t> value) {
  if (value) field = value;
}

std::string count_text(std::uint64_t n, std::string_view what) {
  return std::to_string(n) + " " + std::string(what) + (n == 1 ? "" : "s");
}

constexpr EnumNames<CompileOutcome, 5> compile_outcome_names{{
    {CompileOutcome::kCompiled, "compiled"},
    {CompileOutcome::kNothingToCompile, "nothing_to_compile"},
    {CompileOutcome::kCompileFailed, "compile_failed"},
    {CompileOutcome::kScriptFailed, "script_failed"},
    {CompileOutcome::kFailedOtherwise, "failed_otherwise"},
}};

}  // namespace

NpcSummary parse_npc_output(std::string_view output) {
  NpcSummary summary;
  while (!output.empty()) {
    const auto end = output.find('\n');
    const auto line = output.substr(0, end);
    output = end == std::string_view::npos ? std::string_view() : output.substr(end + 1);
    set_if(summary.total_graphs, number_after(line, "Total graphs:"));
    set_if(summary.successful, number_after(line, "Total successful compilations:"));
    set_if(summary.failed, number_after(line, "Total failed compilations:"));
    if (line.find("No todo hlos found") != std::string_view::npos) summary.no_todo_hlos = true;
    if (line.find("There was an error in the training script") != std::string_view::npos) {
      summary.training_script_failed = true;
    }
  }
  return summary;
}

bool npc_run_ended(const NpcSummary& summary) {
  return summary.total_graphs || summary.successful || summary.failed || summary.no_todo_hlos ||
         summary.training_script_failed;
}

std::string_view to_string(CompileOutcome outcome) {
  return name_of(compile_outcome_names, outcome);
}

CompileResult interpret_npc_run(std::string_view output, int exit_status) {
  CompileResult result;
  result.exit_status = exit_status;
  result.summary = parse_npc_output(output);
  const auto& s = result.summary;
  const std::string exit_text = exit_status < 0
                                    ? "was killed by signal " + std::to_string(-exit_status)
                                    : "exited with status " + std::to_string(exit_status);
  if (s.failed && *s.failed > 0) {
    result.outcome = CompileOutcome::kCompileFailed;
    result.message = "neuron_parallel_compile: " + count_text(*s.failed, "graph") +
                     " failed to compile" +
                     (s.total_graphs ? " (of " + std::to_string(*s.total_graphs) + ")" : "") +
                     "; read the model.log of the failed entries (trn-cache status shows them), "
                     "fix the model or compiler flags, then clear them with "
                     "'trn-cache prune --failed'";
  } else if (exit_status == 0 && s.no_todo_hlos && !s.failed) {
    result.outcome = CompileOutcome::kNothingToCompile;
    result.message = "neuron_parallel_compile: no new graphs; the cache already held them all";
  } else if (exit_status == 0) {
    result.outcome = CompileOutcome::kCompiled;
    result.message = "neuron_parallel_compile: " +
                     (s.successful ? count_text(*s.successful, "graph") + " compiled"
                                   : std::string("finished without a summary"));
  } else if (s.training_script_failed || (exit_status == 1 && !s.failed)) {
    result.outcome = CompileOutcome::kScriptFailed;
    result.message =
        "neuron_parallel_compile: the training script failed while its graphs were "
        "extracted (" +
        exit_text + "); its error is in the output above";
  } else {
    result.outcome = CompileOutcome::kFailedOtherwise;
    result.message = "neuron_parallel_compile " + exit_text +
                     (s.failed ? " after reporting no failed compilation" : " without a summary") +
                     "; see its output";
  }
  return result;
}

nlohmann::json to_json(const CompileResult& result) {
  auto optional_number = [](const std::optional<std::uint64_t>& n) {
    return n ? nlohmann::json(*n) : nlohmann::json(nullptr);
  };
  return {{"outcome", to_string(result.outcome)},
          {"ok", result.ok()},
          {"exit_status", result.exit_status},
          {"total_graphs", optional_number(result.summary.total_graphs)},
          {"successful", optional_number(result.summary.successful)},
          {"failed", optional_number(result.summary.failed)},
          {"no_todo_hlos", result.summary.no_todo_hlos},
          {"message", result.message}};
}

}  // namespace trn::cache
