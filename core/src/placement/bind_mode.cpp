#include "trn/placement/bind_mode.hpp"

#include <string>

#include "trn/common/error.hpp"

namespace trn::placement {

BindMode parse_bind_mode(std::string_view text, std::string_view what) {
  if (text == "numa") return BindMode::kNuma;
  if (text == "cores") return BindMode::kCores;
  if (text == "none") return BindMode::kNone;
  throw Error(std::string(what) + "=" + std::string(text) +
              " is not a CPU binding mode: use numa, cores or none");
}

std::string_view to_string(BindMode mode) {
  switch (mode) {
    case BindMode::kNuma:
      return "numa";
    case BindMode::kCores:
      return "cores";
    case BindMode::kNone:
      return "none";
  }
  return "numa";
}

}  // namespace trn::placement
