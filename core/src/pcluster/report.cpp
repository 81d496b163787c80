#include "report.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace trn::pcluster {

Report::Report(std::string file) : file_(std::move(file)) {}

void Report::error(const YAML::Mark& at, std::string message) {
  add(at, Severity::kError, std::move(message));
}

void Report::warning(const YAML::Mark& at, std::string message) {
  add(at, Severity::kWarning, std::move(message));
}

void Report::add(const YAML::Mark& at, Severity severity, std::string message) {
  // A null mark (-1) means "no position known": point at the start of the file.
  const int line = at.line < 0 ? 1 : at.line + 1;
  const int column = at.column < 0 ? 1 : at.column + 1;
  diagnostics_.push_back({file_, line, column, severity, std::move(message)});
}

std::vector<Diagnostic> Report::take_sorted() {
  std::stable_sort(
      diagnostics_.begin(), diagnostics_.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::tie(a.line, a.column, a.severity) < std::tie(b.line, b.column, b.severity);
      });
  return std::move(diagnostics_);
}

}  // namespace trn::pcluster
