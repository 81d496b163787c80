// Reading trn-health's per-node reports out of one srun step's output. One node's broken line
// (a trn-health of another install, output cut short by a crash) must not stop the gate: that
// node is reported as not checked and the others are judged as usual.
#include "trn/health/step_reports.hpp"

#include <map>
#include <sstream>

#include "trn/common/error.hpp"
#include "trn/run/failure_diagnosis.hpp"

namespace trn::health {

StepReports read_step_reports(std::string_view labelled_output,
                              const std::vector<std::string>& nodes) {
  // srun --label cuts a line longer than 1024 bytes into pieces, each labelled as a line of its
  // own, and another task's pieces may come between them: a task's report is all its pieces,
  // joined in order (its stdout holds only the report; srun's own messages go to stderr).
  std::map<unsigned, std::string> output_of_task;
  std::istringstream lines{std::string(labelled_output)};
  for (std::string line; std::getline(lines, line);) {
    if (const auto labelled = run::parse_labelled_line(line)) {
      output_of_task[labelled->rank].append(labelled->text);
    }
  }
  StepReports step;
  for (const auto& [task, text] : output_of_task) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      step.reports.push_back(node_health_from_json(nlohmann::json::parse(text)));
    } catch (const std::exception& error) {  // nlohmann's parse errors and trn::Error alike
      const auto node = task < nodes.size() ? nodes[task] : "task " + std::to_string(task);
      step.unreadable.push_back(
          {node, "could not be checked: its trn-health report is unreadable (" +
                     std::string(error.what()).substr(0, 160) + ")"});
    }
  }
  return step;
}

}  // namespace trn::health
