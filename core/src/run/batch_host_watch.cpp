#include "trn/run/batch_host_watch.hpp"

#include <algorithm>

namespace trn::run {

std::optional<JobRecord> parse_job_record(std::string_view scontrol_line) {
  JobRecord job;
  bool has_state = false;
  bool has_nodes = false;
  std::size_t at = 0;
  while (at < scontrol_line.size()) {
    const auto end = std::min(scontrol_line.find_first_of(" \n", at), scontrol_line.size());
    const auto field = scontrol_line.substr(at, end - at);
    at = end + 1;
    const auto equals = field.find('=');
    if (equals == std::string_view::npos) continue;
    const auto key = field.substr(0, equals);
    const auto value = std::string(field.substr(equals + 1));
    // Keys are matched whole: ReqNodeList= and ExcNodeList= are other fields.
    if (key == "JobState") {
      job.state = value;
      has_state = true;
    } else if (key == "BatchHost") {
      job.batch_host = value;
    } else if (key == "NodeList") {
      job.node_list = value;
      has_nodes = true;
    }
  }
  if (!has_state || !has_nodes) return std::nullopt;
  return job;
}

BatchHostState judge_batch_host(const JobRecord& job, std::string_view batch_host,
                                const std::vector<std::string>& held_nodes) {
  // A suspended job still holds its nodes; every other state is not a running batch script.
  if (job.state != "RUNNING" && job.state != "SUSPENDED") return BatchHostState::kJobOver;
  const bool held = std::find(held_nodes.begin(), held_nodes.end(), batch_host) != held_nodes.end();
  return held ? BatchHostState::kHeld : BatchHostState::kLost;
}

}  // namespace trn::run
