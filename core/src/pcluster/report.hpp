#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "trn/pcluster/diagnostic.hpp"

namespace trn::pcluster {

// Collects the diagnostics of one file, turning yaml-cpp's 0-based marks into the 1-based
// line:column that editors expect.
class Report {
 public:
  explicit Report(std::string file);

  void error(const YAML::Mark& at, std::string message);
  void warning(const YAML::Mark& at, std::string message);

  // Sorted by position, errors before warnings at the same position.
  std::vector<Diagnostic> take_sorted();

 private:
  void add(const YAML::Mark& at, Severity severity, std::string message);

  std::string file_;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace trn::pcluster
