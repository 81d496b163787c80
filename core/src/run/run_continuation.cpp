#include "trn/run/run_continuation.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/plan/plan_report.hpp"

namespace trn::run {
namespace {

std::string shown(const nlohmann::json& value) {
  if (value.is_null() || value == "") return "unset";
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// The flag that sets each compared key, for the fix in the message.
std::string how_to_set(const std::string& key) {
  if (key == "profile") return "give the earlier run's profile";
  if (key == "global_batch") {
    return "keep the earlier global batch (--global-batch N; under weak scaling, the earlier "
           "node count)";
  }
  return "keep the earlier value (--set " + key + "=...)";
}

}  // namespace

void check_run_dir_continues(const std::filesystem::path& run_dir, const plan::Plan& plan,
                             const std::string& option, bool must_exist,
                             const std::string& new_run) {
  const auto file = run_dir / "plan.json";
  const auto read = try_read_regular_file(file, kMaxTextFileBytes);
  if (read.status == FileRead::Status::kMissing) {
    if (!must_exist) return;
    throw Error(option + ": " + file.string() +
                " does not exist, so this is not a trn-run run directory: give the directory "
                "an earlier trn-run printed at its start (<output root>/<profile>-<job id>)");
  }
  if (!read.ok()) {
    throw Error(option + ": cannot read " + file.string() + " (" + read_failure_reason(read) +
                "): give a run directory an earlier trn-run wrote");
  }
  nlohmann::json earlier;
  try {
    earlier = nlohmann::json::parse(read.text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(option + ": " + file.string() + " is not valid JSON (" + e.what() +
                "): give a run directory an earlier trn-run wrote");
  }
  const auto now = plan::to_json(plan);
  for (const std::string key : {"profile", "model", "seq_len", "global_batch"}) {
    const auto before = earlier.contains(key) ? earlier.at(key) : nlohmann::json(nullptr);
    if (before == now.at(key)) continue;
    std::string message = option;
    message += ": the run there has " + key + " " + shown(before);
    message += " but this plan " + shown(now.at(key));
    message += ": its checkpoints only continue with the same " + key + "; " + how_to_set(key);
    message += ", or start a new run " +
               (new_run.empty() ? "without " + option.substr(0, option.find(' ')) : new_run);
    throw Error(message);
  }
}

long newest_checkpoint(const std::filesystem::path& run_dir) {
  long newest = -1;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(run_dir, error)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with("ckpt_") || !name.ends_with(".json")) continue;
    if (const auto step = parse_whole_number(std::string_view(name).substr(5, name.size() - 10)))
      newest = std::max(newest, static_cast<long>(*step));
  }
  return newest;
}

}  // namespace trn::run
