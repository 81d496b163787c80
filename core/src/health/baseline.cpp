#include "trn/health/baseline.hpp"

#include <nlohmann/json.hpp>

#include "trn/common/text_file.hpp"

namespace trn::health {

Baseline read_baseline(const std::filesystem::path& state_dir, const std::string& boot_id) {
  Baseline empty;
  empty.boot_id = boot_id;
  const auto file = state_dir / kBaselineFile;
  const FileRead read = try_read_regular_file(file, 1u << 20);
  if (read.status == FileRead::Status::kMissing) return empty;
  // A baseline that cannot be used only makes the checks stricter; they say why.
  const auto unusable = [&](const std::string& why) {
    empty.unusable = file.string() + " " + why;
    return empty;
  };
  if (!read.ok()) return unusable("cannot be read (" + read_failure_reason(read) + ")");
  try {
    const auto json = nlohmann::json::parse(read.text);
    Baseline baseline;
    baseline.boot_id = json.at("boot_id").get<std::string>();
    if (baseline.boot_id != boot_id || boot_id.empty()) return empty;  // counters restart at boot
    for (const auto& [key, value] : json.at("counters").items()) {
      // A double such as 1e30 would convert to int64 by undefined behaviour.
      if (!value.is_number_integer() || value.get<std::int64_t>() < 0)
        return unusable("holds counter " + key + " = " + value.dump() +
                        ", which is not a whole number");
      baseline.counters[key] = value.get<std::int64_t>();
    }
    const auto& sequence = json.at("kernel_log_sequence");
    if (!sequence.is_number_unsigned())
      return unusable("holds kernel_log_sequence " + sequence.dump() +
                      ", which is not a whole number");
    baseline.kernel_log_sequence = sequence.get<std::uint64_t>();
    return baseline;
  } catch (const nlohmann::json::exception& error) {
    return unusable(std::string("is not valid JSON (") + error.what() + ")");
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
