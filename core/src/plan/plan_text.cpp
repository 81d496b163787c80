#include <sstream>

#include "plan_fields.hpp"
#include "trn/plan/plan_report.hpp"

namespace trn::plan {

std::string render_plan_text(const Plan& plan) {
  std::ostringstream out;
  for (const auto& field : detail::plan_fields()) {
    if (field.label.empty()) continue;
    const std::string label(field.label);
    for (const auto& value : field.rows(plan)) {
      out << label << std::string(label.size() < 18 ? 18 - label.size() : 1, ' ') << value << '\n';
    }
  }
  return out.str();
}

}  // namespace trn::plan
