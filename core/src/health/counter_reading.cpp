#include "counter_reading.hpp"

#include "trn/common/text_file.hpp"
#include "trn/common/whole_number.hpp"

namespace trn::health {

void read_counter(const std::filesystem::path& file, const std::string& key,
                  const std::string& label, const Baseline& baseline,
                  std::map<std::string, std::int64_t>& counters, CounterReading& reading) {
  const FileRead read = try_read_text(file);
  if (read.status == FileRead::Status::kMissing) return;
  const auto value = read.ok() ? parse_whole_number(trim(read.text)) : std::nullopt;
  if (!value || *value < 0) {
    reading.problems.push_back(
        file.string() +
        (read.ok() ? " holds no count" : " unreadable (" + read_failure_reason(read) + ")"));
    return;
  }
  ++reading.read;
  counters[key] = *value;
  const auto it = baseline.counters.find(key);
  const std::int64_t before = it == baseline.counters.end() ? 0 : it->second;
  if (*value > before) {
    reading.rises.push_back(label + " " + std::to_string(*value) + " (" +
                            (baseline.unusable.empty()
                                 ? std::to_string(before) + " at the last clean check"
                                 : "no usable baseline: " + baseline.unusable) +
                            ")");
  }
}

std::optional<CheckResult> counter_verdict(const std::string& check,
                                           const CounterReading& reading) {
  if (!reading.rises.empty()) {
    std::string evidence = reading.rises.front();
    if (reading.rises.size() > 1)
      evidence += " and " + std::to_string(reading.rises.size() - 1) + " more";
    return CheckResult{check, CheckStatus::kFailed, evidence};
  }
  if (!reading.problems.empty()) {
    return CheckResult{check, CheckStatus::kWarning, reading.problems.front()};
  }
  return std::nullopt;
}

}  // namespace trn::health
