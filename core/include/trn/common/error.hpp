#pragma once

#include <stdexcept>
#include <string>

namespace trn {

// The one error type core/ throws. Its message is meant for the user as it stands: it names
// the input, what is wrong with it and how to fix it. Adaptors (the SPANK plugin, the tools)
// catch it at their boundary and report it; nothing below them prints.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
};

}  // namespace trn
