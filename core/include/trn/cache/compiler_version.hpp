#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trn::cache {

// The version in `neuronx-cc --version` output ("NeuronX Compiler version 2.14.213.0+013d129b",
// on stdout or stderr depending on the release: pass both): the same text names the cache's
// neuronxcc-<version> folder. nullopt when the line is not there.
std::optional<std::string> parse_compiler_version(std::string_view version_output);

}  // namespace trn::cache
