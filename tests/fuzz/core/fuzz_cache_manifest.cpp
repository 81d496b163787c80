// Files in the shared tiers that any job of the cluster may have written, or left half written:
// compile manifests (trn-manifests/<key>.json), a run's results.json that a forecast calibrates
// from, and the compile cache's folder and file names (trn-cache status, prune, pull).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fuzz_tree.hpp"
#include "trn/cache/manifest.hpp"
#include "trn/cache/scan.hpp"
#include "trn/cache/summary.hpp"
#include "trn/common/error.hpp"
#include "trn/forecast/run_measurement.hpp"

namespace {

constexpr const char* kKey = "0123456789abcdef";

// A name a folder or file can have: no '/', no NUL, not "." or "..".
std::string file_name(FuzzedDataProvider& input, const std::string& prefix) {
  std::string name = prefix;
  for (char c : input.ConsumeRandomLengthString(32)) {
    if (c != '/' && c != '\0') name += c;
  }
  if (name.empty() || name == "." || name == "..") name += "x";
  return name;
}

void read_cache_tree(FuzzedDataProvider& input, const std::filesystem::path& root) {
  for (auto files = input.ConsumeIntegralInRange(0, 6); files > 0; --files) {
    // Mostly the layout's own prefixes, so that the names reach the entry and state rules.
    const bool layout = input.ConsumeBool();
    const auto version = file_name(input, layout ? "neuronxcc-" : "");
    const auto module = file_name(input, layout ? "MODULE_" : "");
    const auto file = file_name(input, "");
    trn::fuzz::write_file(root / version / module / file, input.ConsumeRandomLengthString(16));
  }
  const auto entries = trn::cache::scan(root);
  trn::cache::to_json(trn::cache::summarize(entries), root).dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const trn::test::TempDir tree;
  const auto root = tree.path() / "shared";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  FuzzedDataProvider input(data, size);
  try {
    switch (input.ConsumeIntegralInRange(0, 2)) {
      case 0:
        trn::fuzz::write_file(trn::cache::manifest_path(root, kKey),
                              input.ConsumeRemainingBytesAsString());
        trn::cache::has_manifest(root, kKey);
        trn::cache::read_manifest(root, kKey);
        break;
      case 1:
        trn::fuzz::write_file(root / "results.json", input.ConsumeRemainingBytesAsString());
        trn::forecast::read_run_measurement(root);
        break;
      case 2:
        read_cache_tree(input, root);
        break;
    }
  } catch (const trn::Error&) {
  }
  return 0;
}
