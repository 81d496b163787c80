#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

// The on-disk layout of the Neuron compile cache (docs/hardware.md#compile-cache):
//   <root>/neuronxcc-<compiler version>/MODULE_<graph hash>+<flags hash>/
// holding model.hlo_module.pb, compile_flags.json, model.neff, model.done (success),
// model.log (failure) and *.lock files (a compile in progress, or an interrupted one).
namespace trn::cache {

inline constexpr std::string_view version_dir_prefix = "neuronxcc-";
inline constexpr std::string_view module_dir_prefix = "MODULE_";
inline constexpr std::string_view hlo_file = "model.hlo_module.pb";
inline constexpr std::string_view flags_file = "compile_flags.json";
inline constexpr std::string_view neff_file = "model.neff";
inline constexpr std::string_view done_file = "model.done";
inline constexpr std::string_view log_file = "model.log";
inline constexpr std::string_view lock_suffix = ".lock";

// Where the compiler caches when nothing says otherwise.
inline constexpr std::string_view default_cache_root = "/var/tmp/neuron-compile-cache";

// The node-local cache the compiler uses, as the compiler picks it: --cache_dir in
// NEURON_CC_FLAGS, else NEURON_COMPILE_CACHE_URL (a folder, or a file:// URL), else
// default_cache_root. A URL of another scheme (s3://) is an error naming it.
std::filesystem::path compiler_cache_root(const std::optional<std::string>& neuron_cc_flags,
                                          const std::optional<std::string>& cache_url);

// "neuronxcc-2.14.213.0+013d129b" -> true; the version is what follows the prefix.
bool is_version_dir_name(std::string_view name);
// "MODULE_10342337443829457519+d41d8cd9" -> true.
bool is_module_dir_name(std::string_view name);
bool is_lock_file_name(std::string_view name);

}  // namespace trn::cache
