#include "trn/pcluster/diagnostic.hpp"

#include <algorithm>

namespace trn::pcluster {

std::string Diagnostic::to_string() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
         (severity == Severity::kError ? "error" : "warning") + ": " + message;
}

bool has_errors(const std::vector<Diagnostic>& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

}  // namespace trn::pcluster
