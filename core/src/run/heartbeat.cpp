#include "trn/run/heartbeat.hpp"

#include <nlohmann/json.hpp>

namespace trn::run {
namespace {

template <typename T>
std::optional<T> optional_number(const nlohmann::json& record, const char* key) {
  const auto it = record.find(key);
  if (it == record.end() || !it->is_number()) return std::nullopt;
  return it->get<T>();
}

}  // namespace

std::optional<Heartbeat> parse_heartbeat(std::string_view line) {
  // The reader may see a line the rank is rewriting at that moment: anything that does not
  // parse whole is no heartbeat this time, never an error.
  const auto record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object()) return std::nullopt;
  const auto rank = optional_number<long>(record, "rank");
  const auto step = optional_number<long>(record, "step");
  const auto since = optional_number<double>(record, "since");
  const auto phase = record.find("phase");
  if (!rank || *rank < 0 || !step || !since || phase == record.end() || !phase->is_string())
    return std::nullopt;
  Heartbeat beat;
  beat.rank = static_cast<unsigned>(*rank);
  beat.step = *step;
  beat.since = *since;
  beat.phase = phase->get<std::string>();
  if (const auto node = record.find("node"); node != record.end() && node->is_string())
    beat.node = node->get<std::string>();
  beat.pid = optional_number<long>(record, "pid").value_or(0);
  beat.start_step = optional_number<long>(record, "start_step");
  beat.compute_s = optional_number<double>(record, "compute_s");
  beat.window = optional_number<long>(record, "window").value_or(0);
  beat.window_compute_s = optional_number<double>(record, "window_compute_s");
  if (const auto error = record.find("error"); error != record.end() && error->is_string())
    beat.error = error->get<std::string>();
  return beat;
}

}  // namespace trn::run
