#include "trn/run/failure_diagnosis.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <sstream>

namespace trn::run {
namespace {

struct Traceback {
  std::string exception;  // the last line of the traceback, e.g. "ValueError: bad"
  std::string text;       // the whole traceback
};

// The last Python traceback in a rank's output, if any.
std::optional<Traceback> last_traceback(const std::string& text) {
  const auto start = text.rfind("Traceback (most recent call last):");
  if (start == std::string::npos) return std::nullopt;
  std::istringstream lines(text.substr(start));
  std::string line;
  Traceback traceback;
  std::getline(lines, line);
  traceback.text = line + "\n";
  while (std::getline(lines, line)) {
    traceback.text += line + "\n";
    // Frames and source lines are indented; the exception line is the first one that is not.
    if (!line.empty() && line.front() != ' ') {
      traceback.exception = line;
      break;
    }
  }
  if (traceback.exception.empty()) return std::nullopt;
  return traceback;
}

// A rank's final error: the exception of its last traceback, else its last line when that line
// reports an error (e.g. "trn_trainer: error: ..."), as programs without a traceback do.
std::optional<Traceback> final_error(const std::string& text) {
  if (auto traceback = last_traceback(text)) return traceback;
  auto end = text.find_last_not_of("\n ");
  if (end == std::string::npos) return std::nullopt;
  const auto begin = text.rfind('\n', end);
  const auto line = text.substr(begin == std::string::npos ? 0 : begin + 1,
                                end + 1 - (begin == std::string::npos ? 0 : begin + 1));
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower.find("error") == std::string::npos) return std::nullopt;
  return Traceback{line, line + "\n"};
}

}  // namespace

FailureDiagnosis diagnose_training_failure(const std::vector<RankOutput>& ranks,
                                           unsigned expected_ranks) {
  FailureDiagnosis diagnosis;
  std::map<unsigned, Traceback> tracebacks;
  for (const auto& rank : ranks) {
    if (auto error = final_error(rank.text)) tracebacks.emplace(rank.rank, std::move(*error));
  }
  const bool every_rank_raised = expected_ranks > 0 && tracebacks.size() == expected_ranks;
  const bool all_same = !tracebacks.empty() &&
                        std::all_of(tracebacks.begin(), tracebacks.end(), [&](const auto& entry) {
                          return entry.second.exception == tracebacks.begin()->second.exception;
                        });
  if (every_rank_raised && all_same) {
    const auto& [first_rank, traceback] = *tracebacks.begin();
    diagnosis.kind = FailureKind::kUserError;
    diagnosis.exception = traceback.exception;
    diagnosis.excerpt = traceback.text;
    diagnosis.summary = "every rank failed with the same error (rank " +
                        std::to_string(first_rank) + " shown): " + traceback.exception;
    return diagnosis;
  }
  diagnosis.kind = FailureKind::kNodeFailure;
  diagnosis.summary =
      std::to_string(tracebacks.size()) + " of " + std::to_string(expected_ranks) +
      " ranks reported an error" +
      (tracebacks.empty() ? "" : " (first: " + tracebacks.begin()->second.exception + ")") +
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
  for (auto& [rank, text] : by_rank) ranks.push_back({rank, node, std::move(text)});
  return ranks;
}

}  // namespace trn::run
