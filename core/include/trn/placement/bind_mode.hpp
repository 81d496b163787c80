#pragma once

#include <string_view>

namespace trn::placement {

// How a task's CPUs are chosen:
//   numa  - the CPUs of the NUMA node(s) holding the task's Neuron devices (default);
//   cores - those CPUs split evenly between the tasks on each NUMA node, whole physical cores;
//   none  - no binding: the task may use every CPU of the step.
enum class BindMode { kNuma, kCores, kNone };

// Parses "numa", "cores" or "none"; `what` names the input in the error (e.g. "--neuron-bind").
BindMode parse_bind_mode(std::string_view text, std::string_view what);
std::string_view to_string(BindMode mode);

}  // namespace trn::placement
