#include "core_ranges.hpp"

#include <string>

#include "trn/common/error.hpp"

namespace trn::placement {
namespace {

std::string divisors(std::size_t n) {
  std::string out;
  for (std::size_t d = 1; d <= n; ++d) {
    if (n % d == 0) out += (out.empty() ? "" : ", ") + std::to_string(d);
  }
  return out;
}

}  // namespace

CoreRanges split_cores(const IdList& available, unsigned tasks,
                       std::optional<unsigned> cores_per_task) {
  const std::size_t total = available.size();
  CoreRanges out;
  if (cores_per_task) {
    if (*cores_per_task == 0) {
      throw Error("--neuron-cores-per-task=0: a task needs at least one NeuronCore");
    }
    out.cores_per_task = *cores_per_task;
    if (std::size_t(*cores_per_task) * tasks > total) {
      throw Error(std::to_string(tasks) + " tasks x " + std::to_string(*cores_per_task) +
                  " NeuronCores need " + std::to_string(std::size_t(*cores_per_task) * tasks) +
                  " but the step has " + std::to_string(total) + " NeuronCores (" +
                  available.to_string() +
                  ") on this node: lower --neuron-cores-per-task or "
                  "the number of tasks per node");
    }
  } else {
    if (total % tasks != 0) {
      throw Error(std::to_string(total) + " NeuronCores cannot be split into " +
                  std::to_string(tasks) + " tasks: choose --neuron-cores-per-task that divides " +
                  std::to_string(total) + " (" + divisors(total) +
                  ") and a matching number of tasks per node");
    }
    out.cores_per_task = unsigned(total / tasks);
  }
  const unsigned k = out.cores_per_task;
  const unsigned last = available.ids().back();
  for (unsigned start = 0; start + k - 1 <= last && out.per_task.size() < tasks; start += k) {
    const IdList range = IdList::range(start, k);
    if (available.contains_all(range)) out.per_task.push_back(range);
  }
  if (out.per_task.size() < tasks) {
    throw Error("only " + std::to_string(out.per_task.size()) + " ranges of " + std::to_string(k) +
                " contiguous NeuronCores starting at a multiple of " + std::to_string(k) +
                " fit in the step's NeuronCores " + available.to_string() + ", " +
                std::to_string(tasks) +
                " tasks need one each: choose "
                "--neuron-cores-per-task that divides the cores of each granted device, or "
                "request whole, adjacent devices");
  }
  return out;
}

}  // namespace trn::placement
