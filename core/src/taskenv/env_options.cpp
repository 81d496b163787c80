#include "trn/taskenv/env_options.hpp"

#include <string>

#include "trn/common/error.hpp"

namespace trn::taskenv {

EfaMode parse_efa_mode(std::string_view text, std::string_view what) {
  if (text == "auto") return EfaMode::kAuto;
  if (text == "required") return EfaMode::kRequired;
  if (text == "off") return EfaMode::kOff;
  throw Error(std::string(what) + "=" + std::string(text) +
              " is not an EFA mode: use auto, required or off");
}

std::string_view to_string(EfaMode mode) {
  switch (mode) {
    case EfaMode::kAuto:
      return "auto";
    case EfaMode::kRequired:
      return "required";
    case EfaMode::kOff:
      return "off";
  }
  return "auto";
}

}  // namespace trn::taskenv
