#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trn::cache {

// The states optimum-neuron's cache cleanup tells apart (docs/hardware.md#compile-cache).
enum class EntryState {
  kDone,    // model.neff and model.done: a usable compiled graph
  kFailed,  // model.log and no model.neff: the compiler failed; kept so it is not retried
  kLocked,  // any *.lock: a compile runs now, or was killed and left its lock behind
  kEmpty,   // anything else, typically the HLO alone: collected, not (yet) compiled
};

std::string_view to_string(EntryState state);  // "done", "failed", "locked", "empty"

// A lock wins over everything (someone may be writing the entry), then done, then failed.
// A neff without model.done is a compile that did not finish: empty, not done.
EntryState classify(const std::vector<std::string>& file_names);

struct Entry {
  std::filesystem::path path;    // <root>/neuronxcc-<version>/MODULE_<graph>+<flags>
  std::string compiler_version;  // the version folder's name without "neuronxcc-"
  std::string module;            // "MODULE_<graph>+<flags>"
  EntryState state = EntryState::kEmpty;
  std::uintmax_t bytes = 0;       // all regular files of the entry
  std::uintmax_t neff_bytes = 0;  // model.neff alone (0 without one)
  // The newest access or modification time of its files: when it was last used.
  std::chrono::system_clock::time_point last_use{};
};

// Reads one entry folder; nullopt when it vanished (another process pruned or replaced it).
// Errors other than "does not exist" throw trn::Error naming the folder.
std::optional<Entry> read_entry(const std::filesystem::path& entry_dir);

}  // namespace trn::cache
