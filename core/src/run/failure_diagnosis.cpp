#include "trn/run/failure_diagnosis.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "trn/run/neuron_hardware_status.hpp"

namespace trn::run {
namespace {

// The error a rank printed itself.
struct RankError {
  std::string exception;  // the exception line of a traceback, or the error line itself
  std::string text;       // the whole traceback, or the error line
  // A line the program printed on purpose ("prog: error: ..."), not a traceback.
  bool error_line = false;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

std::string lower_case(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

// slurmstepd's "*** STEP 12.0 ON n1 CANCELLED AT ... ***" and srun's "srun: error: n2: task 1:
// Exited ..." describe what Slurm did to the step, never what went wrong inside a rank.
bool is_slurm_line(std::string_view line) {
  const auto begin = line.find_first_not_of(' ');
  if (begin == std::string_view::npos) return false;
  line.remove_prefix(begin);
  // "slurmstepd-NODE:" where one host runs several slurmd (multiple-slurmd builds).
  return line.starts_with("slurmstepd:") || line.starts_with("slurmstepd-") ||
         line.starts_with("srun:") || line.starts_with("***");
}

// "trn_trainer: error: ...", "python3 -m trn_trainer pretrain: error: ...", "ERROR: ...": an
// error the program reports on purpose (a warning that merely mentions "UnpicklingError: x" is
// none).
bool is_error_line(const std::string& line) {
  const auto lower = lower_case(line);
  const auto at = lower.find("error:");
  if (at == 0) return true;
  return at != std::string::npos && at >= 2 && lower.compare(at - 2, 2, ": ") == 0 &&
         lower.find(':') == at - 2;
}

// The traceback starting at lines[first]: the exception is its first line that is not indented.
std::optional<RankError> traceback_at(const std::vector<std::string>& lines, std::size_t first) {
  RankError error;
  error.text = lines[first] + "\n";
  for (auto i = first + 1; i < lines.size(); ++i) {
    error.text += lines[i] + "\n";
    if (!lines[i].empty() && lines[i].front() != ' ') {
      error.exception = lines[i];
      return error;
    }
  }
  return std::nullopt;
}

// A rank's first error: its first traceback or error line, Slurm's lines left out; failing
// both, its last line when that mentions an error (as programs without either may print it).
std::optional<RankError> first_error(const std::vector<std::string>& lines) {
  std::optional<std::string> last;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& line = lines[i];
    if (is_slurm_line(line)) continue;
    if (line.starts_with("Traceback (most recent call last):")) return traceback_at(lines, i);
    if (is_error_line(line)) return RankError{line, line + "\n", true};
    if (line.find_first_not_of(' ') != std::string::npos) last = line;
  }
  if (!last || lower_case(*last).find("error") == std::string::npos) return std::nullopt;
  return RankError{*last, *last + "\n", false};
}

FailureDiagnosis user_error(unsigned rank, const RankError& error, const std::string& how) {
  FailureDiagnosis diagnosis;
  diagnosis.kind = FailureKind::kUserError;
  diagnosis.exception = error.exception;
  diagnosis.excerpt = error.text;
  diagnosis.summary = how + " (rank " + std::to_string(rank) + " shown): " + error.exception;
  return diagnosis;
}

}  // namespace

// The rule, rank by rank (a rank's error is the first one it printed itself; Slurm's lines are
// never one):
// - every rank printed an error and all are the same: the user's, traceback or not;
// - the ranks that printed an error all printed the same error line, the others printed none
//   and Slurm's lines show it cancelled the step: still the user's. Those ranks were killed by
//   the cancel before they reached the same check (a slow node still importing torch); only
//   the failing node's first task gets slurmstepd's line, the other logs just stop.
//   A traceback does not get this benefit of the doubt: a rank that lost its peer raises one
//   ("Connection reset by peer") and its peers are then cancelled, which is a node failure;
// - anything else (ranks disagree, a rank vanished without Slurm cancelling it): a node failure.
FailureDiagnosis diagnose_training_failure(const std::vector<RankOutput>& ranks,
                                           unsigned expected_ranks) {
  for (const auto& rank : ranks) {
    if (const auto status = find_neuron_hardware_status(rank.text)) {
      FailureDiagnosis diagnosis;
      diagnosis.kind = FailureKind::kNodeFailure;
      diagnosis.failed_node = rank.node;
      diagnosis.node_evidence = *status + " on rank " + std::to_string(rank.rank);
      diagnosis.summary = "rank " + std::to_string(rank.rank) + " on " + rank.node +
                          " stopped with a Neuron hardware error, " + *status + ": node " +
                          rank.node + " failed";
      return diagnosis;
    }
  }
  std::map<unsigned, RankError> errors;
  bool slurm_cancelled = false;
  for (const auto& rank : ranks) {
    const auto lines = lines_of(rank.text);
    if (auto error = first_error(lines)) errors.emplace(rank.rank, std::move(*error));
    slurm_cancelled =
        slurm_cancelled || std::any_of(lines.begin(), lines.end(), [](const auto& line) {
          return is_slurm_line(line) && line.find("CANCELLED") != std::string::npos;
        });
  }
  const bool all_same =
      !errors.empty() && std::all_of(errors.begin(), errors.end(), [&](const auto& entry) {
        return entry.second.exception == errors.begin()->second.exception;
      });
  if (all_same) {
    const auto& [first_rank, error] = *errors.begin();
    if (expected_ranks > 0 && errors.size() == expected_ranks)
      return user_error(first_rank, error, "every rank failed with the same error");
    if (error.error_line && slurm_cancelled)
      return user_error(first_rank, error,
                        std::to_string(errors.size()) + " of " + std::to_string(expected_ranks) +
                            " ranks reported the same error, Slurm cancelled the others");
  }
  FailureDiagnosis diagnosis;
  diagnosis.kind = FailureKind::kNodeFailure;
  diagnosis.summary = std::to_string(errors.size()) + " of " + std::to_string(expected_ranks) +
                      " ranks reported an error" +
                      (errors.empty() ? "" : " (first: " + errors.begin()->second.exception + ")") +
                      ": treating it as a node or fabric failure";
  return diagnosis;
}

std::optional<LabelledLine> parse_labelled_line(std::string_view line) {
  const auto colon = line.find(": ");
  if (colon == std::string_view::npos) return std::nullopt;
  auto label = line.substr(0, colon);
  while (!label.empty() && label.front() == ' ') label.remove_prefix(1);
  unsigned rank = 0;
  const auto [end, error] = std::from_chars(label.data(), label.data() + label.size(), rank);
  if (label.empty() || error != std::errc{} || end != label.data() + label.size())
    return std::nullopt;
  return LabelledLine{rank, line.substr(colon + 2)};
}

std::vector<RankOutput> split_labelled_output(const std::string& labelled,
                                              const std::string& node) {
  std::map<unsigned, std::string> by_rank;
  std::istringstream lines(labelled);
  std::string line;
  while (std::getline(lines, line)) {
    if (const auto labelled_line = parse_labelled_line(line)) {
      by_rank[labelled_line->rank].append(labelled_line->text).append("\n");
    }
  }
  std::vector<RankOutput> ranks;
  ranks.reserve(by_rank.size());
  for (auto& [rank, text] : by_rank) ranks.push_back({rank, node, std::move(text)});
  return ranks;
}

}  // namespace trn::run
