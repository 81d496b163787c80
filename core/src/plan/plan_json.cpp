#include "plan_fields.hpp"
#include "trn/plan/plan_report.hpp"

namespace trn::plan {
namespace {

// `text` with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Every string in `value` (at any depth) with the run's own folders, new for every job,
// written as "{checkpoint_local_dir}" and "{run_dir}".
void name_run_folders(nlohmann::json& value, const Plan& plan) {
  if (value.is_string()) {
    auto text = value.get<std::string>();
    if (plan.checkpoint_local_dir) {
      text = replace_all(std::move(text), plan.checkpoint_local_dir->string(),
                         "{checkpoint_local_dir}");
    }
    value = replace_all(std::move(text), plan.run_dir.string(), "{run_dir}");
  } else if (value.is_structured()) {
    for (auto& item : value) name_run_folders(item, plan);
  }
}

}  // namespace

nlohmann::json compile_inputs(const Plan& plan) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& field : detail::plan_fields()) {
    if (!field.compile_input) continue;
    auto value = field.json(plan);
    // The graphs do not depend on the run's folders.
    name_run_folders(value, plan);
    out[std::string(field.json_key)] = std::move(value);
  }
  return out;
}

nlohmann::json to_json(const Plan& plan) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& field : detail::plan_fields()) {
    if (!field.json_key.empty()) out[std::string(field.json_key)] = field.json(plan);
  }
  return out;
}

}  // namespace trn::plan
