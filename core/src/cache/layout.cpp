#include "trn/cache/layout.hpp"

#include <algorithm>

#include "trn/cache/compiler_flags.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {

namespace {

// The compiler names its folders in printable ASCII (versions, graph and flag hashes). Any other
// byte marks a folder of someone else's: not an entry, so that its name never reaches
// `trn-cache status --json` (JSON strings must be UTF-8) or a terminal.
bool has_prefix_and_more(std::string_view name, std::string_view prefix) {
  return name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
         std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                     [](char c) { return c > ' ' && c < '\x7f'; });
}

}  // namespace

std::filesystem::path compiler_cache_root(const std::optional<std::string>& neuron_cc_flags,
                                          const std::optional<std::string>& cache_url) {
  if (neuron_cc_flags) {
    if (auto dir = cache_dir_in_flags(*neuron_cc_flags); dir && !dir->empty()) {
      return *dir;
    }
  }
  if (!cache_url || cache_url->empty()) return std::string(default_cache_root);
  constexpr std::string_view file_scheme = "file://";
  if (cache_url->rfind(file_scheme, 0) == 0) return cache_url->substr(file_scheme.size());
  if (cache_url->find("://") != std::string::npos) {
    throw Error("NEURON_COMPILE_CACHE_URL=" + *cache_url +
                ": not a folder; trn-cache works on folders, so name one with --root");
  }
  return *cache_url;
}

bool is_version_dir_name(std::string_view name) {
  return has_prefix_and_more(name, version_dir_prefix);
}

bool is_module_dir_name(std::string_view name) {
  return has_prefix_and_more(name, module_dir_prefix);
}

bool is_lock_file_name(std::string_view name) {
  return name.size() > lock_suffix.size() &&
         name.substr(name.size() - lock_suffix.size()) == lock_suffix;
}

}  // namespace trn::cache
