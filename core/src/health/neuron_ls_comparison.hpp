#pragma once

#include <optional>
#include <string>

#include "trn/health/node_checks.hpp"

namespace trn::health {

// The neuron-devices check's second opinion (docs/health.md#checks): `neuron-ls -j`, recorded
// or run within what is left of the node's budget, lists the instance type's devices, each with
// its NeuronCores. nullopt when it agrees or is not installed (then `evidence` says so); else the
// check's result: FAILED for a disagreement, a warning when neuron-ls could not run in time.
std::optional<CheckResult> compare_with_neuron_ls(const NodeCheckOptions& options,
                                                  const Expected& expected, std::string& evidence);

}  // namespace trn::health
