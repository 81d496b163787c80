#pragma once

#include <optional>
#include <string>

namespace trn {

// This process's environment variable `name`: std::nullopt when unset, "" when set but empty
// (callers that treat empty as unset say so themselves).
std::optional<std::string> env_value(const std::string& name);

}  // namespace trn
