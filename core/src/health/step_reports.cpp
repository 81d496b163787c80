// Reading trn-health's per-node reports out of one srun step's output. One node's broken line
// (a trn-health of another install, output cut short by a crash) must not stop the gate: that
// node is reported as not checked and the others are judged as usual.
#include "trn/health/step_reports.hpp"

#include <sstream>

#include "trn/common/error.hpp"
#include "trn/run/failure_diagnosis.hpp"

namespace trn::health {

StepReports read_step_reports(std::string_view labelled_output,
                              const std::vector<std::string>& nodes) {
  StepReports step;
  std::istringstream lines{std::string(labelled_output)};
  for (std::string line; std::getline(lines, line);) {
    const auto labelled = run::parse_labelled_line(line);
    if (!labelled || labelled->text.empty() || labelled->text.front() != '{') continue;
    const bool known_task = labelled->rank < nodes.size();
    try {
      step.reports.push_back(node_health_from_json(nlohmann::json::parse(labelled->text)));
    } catch (const std::exception& error) {  // nlohmann's parse errors and trn::Error alike
      const auto node =
          known_task ? nodes[labelled->rank] : "task " + std::to_string(labelled->rank);
      step.unreadable.push_back(
          {node, "could not be checked: its trn-health report is unreadable (" +
                     std::string(error.what()).substr(0, 160) + ")"});
    }
  }
  return step;
}

}  // namespace trn::health
