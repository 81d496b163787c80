#include "trn/health/baseline.hpp"

#include <nlohmann/json.hpp>

#include "trn/common/text_file.hpp"

namespace trn::health {

Baseline read_baseline(const std::filesystem::path& state_dir, const std::string& boot_id) {
  Baseline empty;
  empty.boot_id = boot_id;
  const FileRead read = try_read_regular_file(state_dir / kBaselineFile, 1u << 20);
  if (!read.ok()) return empty;
  try {
    const auto json = nlohmann::json::parse(read.text);
    Baseline baseline;
    baseline.boot_id = json.at("boot_id").get<std::string>();
    if (baseline.boot_id != boot_id || boot_id.empty()) return empty;
    baseline.counters = json.at("counters").get<std::map<std::string, std::int64_t>>();
    baseline.kernel_log_sequence = json.at("kernel_log_sequence").get<std::uint64_t>();
    return baseline;
  } catch (const nlohmann::json::exception&) {
    return empty;  // a damaged baseline only makes the check stricter
  }
}

void write_baseline(const std::filesystem::path& state_dir, const Baseline& baseline) {
  const nlohmann::json json = {{"boot_id", baseline.boot_id},
                               {"counters", baseline.counters},
                               {"kernel_log_sequence", baseline.kernel_log_sequence}};
  write_file_atomically(
      state_dir / kBaselineFile, json.dump(2) + "\n", 0644,
      "make " + state_dir.string() + " a directory root can write (trn-health --state-dir)");
}

}  // namespace trn::health
