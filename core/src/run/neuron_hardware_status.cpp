#include "trn/run/neuron_hardware_status.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace trn::run {
namespace {

struct HardwareStatus {
  std::string_view name;
  std::string_view code;
};

constexpr std::array<HardwareStatus, 4> kStatuses{{
    {"NRT_EXEC_HW_ERR_HBM_UE", "1201"},
    {"NRT_EXEC_HW_ERR_NC_UE", "1202"},
    {"NRT_EXEC_HW_ERR_DMA_ABORT", "1203"},
    {"NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE", "1205"},
}};

std::string describe(const HardwareStatus& status) {
  return std::string(status.name) + " (" + std::string(status.code) + ")";
}

// Whether text[at..] is the whole word `word` (no letter, digit or '_' on either side).
bool word_at(std::string_view text, std::size_t at, std::string_view word) {
  const auto is_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  if (text.substr(at, word.size()) != word) return false;
  if (at > 0 && is_word(text[at - 1])) return false;
  const auto end = at + word.size();
  return end == text.size() || !is_word(text[end]);
}

}  // namespace

std::optional<std::string> find_neuron_hardware_status(std::string_view text) {
  for (const auto& status : kStatuses) {
    for (auto at = text.find(status.name); at != std::string_view::npos;
         at = text.find(status.name, at + 1)) {
      if (word_at(text, at, status.name)) return describe(status);
    }
  }
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (auto at = lower.find("status"); at != std::string::npos; at = lower.find("status", at + 1)) {
    auto code = at + 6;
    while (code < lower.size() && (lower[code] == ' ' || lower[code] == '=' || lower[code] == ':'))
      ++code;
    for (const auto& status : kStatuses) {
      if (word_at(lower, code, status.code)) return describe(status);
    }
  }
  if (const auto at = text.find("NEURON_HW_ERR="); at != std::string_view::npos) {
    const auto end = text.find_first_of(" \n", at);
    return std::string(text.substr(at, end == std::string_view::npos ? end : end - at));
  }
  return std::nullopt;
}

}  // namespace trn::run
