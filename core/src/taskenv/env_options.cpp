#include "trn/taskenv/env_options.hpp"

#include "trn/common/enum_names.hpp"

namespace trn::taskenv {

constexpr EnumNames<EfaMode, 3> efa_mode_names{
    {{EfaMode::kAuto, "auto"}, {EfaMode::kRequired, "required"}, {EfaMode::kOff, "off"}}};

EfaMode parse_efa_mode(std::string_view text, std::string_view what) {
  return parse_named(efa_mode_names, text, what, "an EFA mode");
}

std::string_view to_string(EfaMode mode) { return name_of(efa_mode_names, mode); }

}  // namespace trn::taskenv
