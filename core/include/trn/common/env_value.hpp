#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trn {

// This process's environment variable `name`: std::nullopt when unset, "" when set but empty
// (callers that treat empty as unset say so themselves).
std::optional<std::string> env_value(std::string_view name);

}  // namespace trn
