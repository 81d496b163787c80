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

// Every string in `value` (at any depth) with the run directory written as "{run_dir}".
void name_run_dir(nlohmann::json& value, const std::string& run_dir) {
  if (value.is_string()) {
    value = replace_all(value.get<std::string>(), run_dir, "{run_dir}");
  } else if (value.is_structured()) {
    for (auto& item : value) name_run_dir(item, run_dir);
  }
}

}  // namespace

nlohmann::json compile_inputs(const Plan& plan) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& field : detail::plan_fields()) {
    if (!field.compile_input) continue;
    auto value = field.json(plan);
    // The run directory is new for every job; the graphs do not depend on it.
    name_run_dir(value, plan.run_dir.string());
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
