#include "trn/placement/bind_mode.hpp"

#include "trn/common/enum_names.hpp"

namespace trn::placement {

constexpr EnumNames<BindMode, 3> bind_mode_names{
    {{BindMode::kNuma, "numa"}, {BindMode::kCores, "cores"}, {BindMode::kNone, "none"}}};

BindMode parse_bind_mode(std::string_view text, std::string_view what) {
  return parse_named(bind_mode_names, text, what, "a CPU binding mode");
}

std::string_view to_string(BindMode mode) { return name_of(bind_mode_names, mode); }

}  // namespace trn::placement
