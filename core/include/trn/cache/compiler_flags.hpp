#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trn::cache {

// The directory named by --cache_dir in NEURON_CC_FLAGS ("--cache_dir=DIR" or "--cache_dir DIR"),
// which takes precedence over NEURON_COMPILE_CACHE_URL in the Neuron compiler.
std::optional<std::string> cache_dir_in_flags(std::string_view neuron_cc_flags);

}  // namespace trn::cache
