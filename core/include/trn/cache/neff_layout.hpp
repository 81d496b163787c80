#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// TorchNeuron's persistent NEFF cache, where torch.compile(backend="neuron") keeps the graphs it
// compiled (docs/hardware.md#torchneuron-cache): one file per graph,
//   <root>/<key[0:2]>/<key[2:4]>/<key>.neff
// written to a temporary file in the same folder and renamed into place, so a .neff file that
// exists is whole. <root> is TORCH_NEURONX_NEFF_CACHE_DIR, else /tmp/neff_cache. The key is a
// hash of the graph (hex); no compiler version or flags folder is part of the layout.
namespace trn::cache {

inline constexpr std::string_view neff_cache_dir_variable = "TORCH_NEURONX_NEFF_CACHE_DIR";
inline constexpr std::string_view default_neff_cache_root = "/tmp/neff_cache";
inline constexpr std::string_view neff_extension = ".neff";
// The folder of a shared tier that holds TorchNeuron's NEFFs beside the neuronxcc-* folders of
// the neuronx-cc layout (neither layout's scan takes the other's folders for entries).
inline constexpr std::string_view shared_neff_dir_name = "torchneuron-neff";

// The cache TorchNeuron uses, as it picks it: TORCH_NEURONX_NEFF_CACHE_DIR when set and not
// empty, else /tmp/neff_cache.
std::filesystem::path neff_cache_root(const std::optional<std::string>& neff_cache_dir);

// <shared root>/torchneuron-neff: the NEFF cache inside a shared tier.
std::filesystem::path shared_neff_root(const std::filesystem::path& shared_root);

// A key as a file name holds one: lower-case hex, at least 4 digits (two shard levels).
bool is_neff_key(std::string_view key);

// "ab/cd/abcd....neff" for key "abcd...."; throws trn::Error for a key that is not one.
std::filesystem::path neff_relative_path(std::string_view key);

struct NeffEntry {
  std::string key;
  std::uintmax_t bytes = 0;
};

// The whole NEFFs under `root`, sorted by key: regular files at their key's sharded path.
// TorchNeuron's temporary files (".tmp.*"), trn-cache's staging folders and anything else
// outside the layout are not entries. nullopt when the root does not exist.
std::optional<std::vector<NeffEntry>> scan_neffs(const std::filesystem::path& root);

}  // namespace trn::cache
