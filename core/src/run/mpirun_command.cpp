#include "trn/run/mpirun_command.hpp"

#include <algorithm>

#include "trn/common/error.hpp"

namespace trn::run {

std::vector<std::string> mpirun_command(const MpirunRequest& request) {
  if (request.hosts.empty()) {
    throw Error("mpi launch: the hostfile " + request.hostfile +
                " lists no host: give one '<host> slots=1' line per node");
  }
  std::vector<std::string> argv = {"mpirun", "-N", "1", "--hostfile", request.hostfile};
  if (request.as_root) argv.emplace_back("--allow-run-as-root");
  for (const auto& name : request.forward) argv.insert(argv.end(), {"-x", name});
  // Open MPI names no master: rank 0 runs on the hostfile's first host (-N 1, by-slot order).
  if (!request.master_addr_set) argv.insert(argv.end(), {"-x", "MASTER_ADDR=" + request.hosts[0]});
  argv.insert(argv.end(), request.trn_run.begin(), request.trn_run.end());
  return argv;
}

std::vector<std::string> variables_to_forward(const std::vector<std::string>& names) {
  std::vector<std::string> forward;
  for (const auto& name : names) {
    const bool wanted = name == "PATH" || name == "PYTHONPATH" || name == "LD_LIBRARY_PATH" ||
                        name.starts_with("TRN_") || name.starts_with("NEURON_") ||
                        name.starts_with("FI_") || name.starts_with("MASTER_");
    if (wanted) forward.push_back(name);
  }
  std::sort(forward.begin(), forward.end());
  return forward;
}

}  // namespace trn::run
