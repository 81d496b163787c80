#pragma once

#include <string>
#include <vector>

#include "install_layout.hpp"

namespace trn::launcher {

// `trn-run --launcher mpi ...` where no mpirun started it (the MPI Operator's launcher pod):
// starts trn-run with the same arguments on every host of the hostfile (Open MPI's
// OMPI_MCA_orte_default_hostfile, else the MPI Operator's /etc/mpi/hostfile), one per host,
// and returns mpirun's exit status (a failing trn-run's). docs/launchers.md#mpi
int start_on_every_host(const std::vector<std::string>& args, const InstallLayout& layout);

}  // namespace trn::launcher
