#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trn/plan/plan.hpp"

namespace trn::plan::detail {

// One fact of a plan and every place it shows: plan.json, the compile manifest's inputs, the
// command/env template placeholders and the text report. plan.json, compile_inputs,
// placeholder_values, known_placeholders and render_plan_text are all driven from
// plan_fields(), so a new fact is one entry there (and its member in Plan).
struct PlanField {
  std::string_view json_key{};  // plan.json key; empty: not in plan.json
  nlohmann::json (*json)(const Plan&) = nullptr;
  bool compile_input = false;  // decides the compiled graphs (compile_inputs)

  std::string_view placeholder{};  // {name} in templates; empty: none
  // The placeholder's value; std::nullopt when the plan has none (using it is then an error).
  // `compile`: the compile phase's value.
  std::optional<std::string> (*value)(const Plan&, bool compile) = nullptr;

  std::string_view label{};  // text report rows; empty: shown in another fact's row
  std::vector<std::string> (*rows)(const Plan&) = nullptr;  // one per row; none: row left out
};

// In the text report's order.
const std::vector<PlanField>& plan_fields();

}  // namespace trn::plan::detail
