#pragma once

#include <string>
#include <vector>

#include "trn/run/launch_environment.hpp"

namespace trn::run {

// `trn-run --launcher mpi PROFILE` where no mpirun started trn-run: the MPI Operator's launcher
// pod, or a user's shell with a hostfile (docs/launchers.md#mpi). trn-run then starts itself on
// every host with mpirun, one per host.
struct MpirunRequest {
  std::string hostfile;              // --hostfile: Open MPI's hostfile
  std::vector<std::string> hosts;    // its hosts (hostfile_hosts)
  std::vector<std::string> trn_run;  // the trn-run command and its arguments
  std::vector<std::string> forward;  // names of variables every host's trn-run needs
  bool master_addr_set = false;      // the user set MASTER_ADDR (forwarded, never replaced)
  bool as_root = false;              // Open MPI refuses root without --allow-run-as-root
};

// mpirun -N 1 --hostfile FILE -x NAME... [-x MASTER_ADDR=<first host>] TRN-RUN ARGS...: every
// host's trn-run learns its rank from Open MPI and the main node from MASTER_ADDR, the
// hostfile's first host. Throws trn::Error naming the hostfile when it lists no host.
std::vector<std::string> mpirun_command(const MpirunRequest& request);

// The variables trn-run passes on to the hosts: PATH, PYTHONPATH and LD_LIBRARY_PATH, and the
// user's TRN_*, NEURON_*, FI_* and MASTER_* variables, out of `names` (the environment's).
std::vector<std::string> variables_to_forward(const std::vector<std::string>& names);

}  // namespace trn::run
