#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace trn::cache {

struct CompilerProcess {
  long pid = 0;
  std::string name;  // "neuronx-cc" or "neuron_parallel_compile"
};

// The Neuron compiler processes running on this node, found in /proc (relative to `proc_root`
// so tests can use a fake tree): a process whose program, or the script its interpreter runs,
// is neuronx-cc or neuron_parallel_compile (matched on /proc/PID/cmdline, and on
// /proc/PID/comm, which the kernel truncates to 15 characters).
std::vector<CompilerProcess> find_compiler_processes(
    const std::filesystem::path& proc_root = "/proc");

}  // namespace trn::cache
