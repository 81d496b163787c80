#pragma once

#include <string>
#include <vector>

namespace trn::pcluster {

enum class Severity { kError, kWarning };

// One finding of the cluster-config linter, located like a compiler message so that editors
// and CI logs can jump to it. Line and column are 1-based.
struct Diagnostic {
  std::string file;
  int line = 1;
  int column = 1;
  Severity severity = Severity::kError;
  std::string message;

  // "FILE:LINE:COLUMN: error: MESSAGE" (or "warning:").
  std::string to_string() const;
};

bool has_errors(const std::vector<Diagnostic>& diagnostics);

}  // namespace trn::pcluster
