#include "trn/run/spare_swap.hpp"

#include <algorithm>

namespace trn::run {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

NodeSelection select_training_nodes(const std::vector<std::string>& job_order,
                                    const std::vector<std::string>& unhealthy,
                                    std::size_t spares_wanted) {
  NodeSelection selection;
  std::vector<std::string> healthy;
  for (const auto& node : job_order) {
    if (!contains(unhealthy, node)) healthy.push_back(node);
  }
  // The job's size less the spares trains when that many are healthy; the rest wait.
  const std::size_t wanted =
      job_order.size() > spares_wanted ? job_order.size() - spares_wanted : 0;
  const auto split =
      healthy.begin() + static_cast<std::ptrdiff_t>(std::min(wanted, healthy.size()));
  selection.nodes.assign(healthy.begin(), healthy.size() >= wanted ? split : healthy.end());
  if (healthy.size() >= wanted) selection.spares.assign(split, healthy.end());
  return selection;
}

std::optional<NodeSwap> swap_in_spares(const std::vector<std::string>& job_order,
                                       const std::vector<std::string>& nodes,
                                       const std::vector<std::string>& spares,
                                       const std::vector<std::string>& lost) {
  NodeSwap swap;
  for (const auto& spare : spares) {
    if (!contains(lost, spare)) swap.spares.push_back(spare);
  }
  std::vector<std::string> kept;
  for (const auto& node : nodes) {
    if (!contains(lost, node)) {
      kept.push_back(node);
      continue;
    }
    if (swap.spares.empty()) return std::nullopt;
    swap.replaced.emplace_back(node, swap.spares.front());
    kept.push_back(swap.spares.front());
    swap.spares.erase(swap.spares.begin());
  }
  // Ranks follow the job's node order (srun's block distribution): keep the list in it.
  const auto position = [&](const std::string& node) {
    return std::find(job_order.begin(), job_order.end(), node) - job_order.begin();
  };
  std::stable_sort(kept.begin(), kept.end(),
                   [&](const auto& a, const auto& b) { return position(a) < position(b); });
  swap.nodes = std::move(kept);
  return swap;
}

}  // namespace trn::run
