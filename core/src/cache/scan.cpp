#include "trn/cache/scan.hpp"

#include "directory.hpp"
#include "trn/cache/layout.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {

std::vector<Entry> scan(const std::filesystem::path& root,
                        const std::optional<std::string>& compiler_version) {
  const auto versions = detail::list_directory(root);
  if (!versions) {
    throw Error("compile cache " + root.string() +
                ": no such folder; name an existing cache root (--root, NEURON_COMPILE_CACHE_URL "
                "or --cache_dir in NEURON_CC_FLAGS)");
  }
  std::vector<Entry> entries;
  for (const auto& version : *versions) {
    if (!version.is_dir || !is_version_dir_name(version.name)) continue;
    if (compiler_version && version.name.substr(version_dir_prefix.size()) != *compiler_version) {
      continue;
    }
    const auto version_dir = root / version.name;
    const auto modules = detail::list_directory(version_dir);
    if (!modules) continue;  // removed while we looked
    for (const auto& module : *modules) {
      if (!module.is_dir || !is_module_dir_name(module.name)) continue;
      if (auto entry = read_entry(version_dir / module.name)) entries.push_back(std::move(*entry));
    }
  }
  return entries;
}

}  // namespace trn::cache
