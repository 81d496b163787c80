#pragma once

#include <cstdint>
#include <string>

#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/whole_number.hpp"

namespace trn::launcher {

// A variable Slurm sets in every task of a step (SLURM_STEP_NODELIST, SLURM_NODEID, ...);
// trn::Error "<what> runs in a Slurm step (no NAME): <how_to_run>" when it is missing or empty.
inline std::string required_step_variable(const char* name, const std::string& what,
                                          const std::string& how_to_run) {
  auto value = env_value(name);
  if (!value || value->empty()) {
    throw Error(what + " runs in a Slurm step (no " + name + "): " + how_to_run);
  }
  return *value;
}

// The same variable as a whole number (ids, counts).
inline std::uint32_t step_number(const char* name, const std::string& what,
                                 const std::string& how_to_run) {
  return static_cast<std::uint32_t>(
      parse_whole_number_in(required_step_variable(name, what, how_to_run), name, 0, 4294967295LL));
}

}  // namespace trn::launcher
