// nccom-test's output, as its user guide documents it: a table with a header row (size(B),
// count(elems), type, time(us) or time:avg(us), algbw(GB/s), busbw(GB/s)) and one row per size,
// then "Avg bus bandwidth". A size whose run failed has "Failure running neuron-bench - log file
// <log>" in its row, followed by "<N> errors found - test failed"; a node without a running
// driver gets "Neuron DKMS Driver is not running! ..." at once. The bus bandwidth is held against
// a floor (docs/health.md#collectives).
#include <charconv>
#include <optional>
#include <sstream>

#include "trn/health/collectives.hpp"

namespace trn::health {
namespace {

constexpr const char* kNccomTestOutputName = "collectives";
constexpr std::size_t kMaxQuoted = 160;

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> result;
  for (std::string word; in >> word;) result.push_back(word);
  return result;
}

bool is_number(const std::string& word) {
  return !word.empty() && word.find_first_not_of("0123456789.") == std::string::npos;
}

std::string shortened(const std::string& text) {
  return text.size() > kMaxQuoted ? text.substr(0, kMaxQuoted) + "..." : text;
}

std::string column(const std::vector<std::string>& header, const std::vector<std::string>& row,
                   const std::string& prefix) {
  for (std::size_t i = 0; i < header.size() && i < row.size(); ++i) {
    if (header[i].starts_with(prefix)) return row[i];
  }
  return "?";
}

// A column's GB/s ("48.08"); nullopt when it is no number.
std::optional<double> gigabytes_per_second(const std::string& text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

CheckResult judge_nccom_test(const std::string& output, int exit_status, unsigned ranks,
                             unsigned min_busbw) {
  const std::string what = "all-reduce of " + std::to_string(kAllReduceBytes) + " B over " +
                           std::to_string(ranks) + " NeuronCores";
  std::vector<std::string> header;
  std::vector<std::string> result_row;
  std::string failure;
  std::string last_line;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const auto row = words(line);
    if (row.empty()) continue;
    last_line = line.substr(line.find_first_not_of(" \t"));
    if (const auto at = line.find("Failure running neuron-bench"); at != std::string::npos) {
      failure = line.substr(at);
    } else if (line.find("errors found - test failed") != std::string::npos ||
               line.find("Driver is not running") != std::string::npos) {
      if (failure.empty()) failure = last_line;
    } else if (row.front() == "size(B)") {
      header = row;
    } else if (!header.empty() && row.size() >= 6 && is_number(row[0]) && is_number(row[1])) {
      result_row = row;
    }
  }
  if (!failure.empty())
    return {kNccomTestOutputName, CheckStatus::kFailed, what + " failed: " + shortened(failure)};
  if (exit_status == 0 && !result_row.empty()) {
    const auto time = column(header, result_row, "time");
    const auto busbw = column(header, result_row, "busbw");
    // One rank moves nothing between NeuronCores: its bus bandwidth is 0 by definition.
    if (min_busbw > 0 && ranks > 1) {
      const auto floor = std::to_string(min_busbw);
      const auto measured = gigabytes_per_second(busbw);
      if (!measured) {
        return {kNccomTestOutputName, CheckStatus::kWarning,
                what + ": " + time + " us, but no bus bandwidth to hold against the floor of " +
                    floor + " GB/s (busbw column: " + shortened(busbw) + ")"};
      }
      if (*measured < min_busbw) {
        return {kNccomTestOutputName, CheckStatus::kFailed,
                what + ": bus bandwidth " + busbw + " GB/s, below the floor of " + floor +
                    " GB/s (" + time + " us)"};
      }
    }
    return {kNccomTestOutputName, CheckStatus::kOk,
            what + ": " + time + " us, bus bandwidth " + busbw + " GB/s"};
  }
  return {kNccomTestOutputName, CheckStatus::kWarning,
          "nccom-test (exit " + std::to_string(exit_status) + ") printed no result to judge" +
              (last_line.empty() ? std::string() : ": " + shortened(last_line))};
}

}  // namespace trn::health
