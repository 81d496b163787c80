#include "mpirun_start.hpp"

#include <unistd.h>

#include <cstring>
#include <iostream>

#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/process.hpp"
#include "trn/common/text_file.hpp"
#include "trn/plan/plan_report.hpp"
#include "trn/run/mpirun_command.hpp"

extern char** environ;

namespace trn::launcher {

int start_on_every_host(const std::vector<std::string>& args, const InstallLayout& layout) {
  run::MpirunRequest request;
  request.hostfile = env_value("OMPI_MCA_orte_default_hostfile").value_or("/etc/mpi/hostfile");
  auto read = try_read_regular_file(request.hostfile, kMaxTextFileBytes);
  if (!read.ok()) {
    throw Error("--launcher mpi outside mpirun: cannot read the hostfile " + request.hostfile +
                " (" + std::strerror(read.error_number) +
                "): run this on the MPI Operator's launcher, set OMPI_MCA_orte_default_hostfile, "
                "or start trn-run with mpirun -N 1 yourself");
  }
  request.hosts = run::hostfile_hosts(read.text);
  request.trn_run = {(layout.bin_dir / "trn-run").string()};
  request.trn_run.insert(request.trn_run.end(), args.begin(), args.end());
  std::vector<std::string> names;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    names.push_back(text.substr(0, text.find('=')));
  }
  request.forward = run::variables_to_forward(names);
  request.master_addr_set = env_value("MASTER_ADDR").has_value();
  request.as_root = ::geteuid() == 0;
  const auto argv = run::mpirun_command(request);
  std::cout << "trn-run: starting trn-run on the " << request.hosts.size() << " host(s) of "
            << request.hostfile << ": " << plan::display_command(argv) << '\n'
            << std::flush;
  return run_process(argv);
}

}  // namespace trn::launcher
