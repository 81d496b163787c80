#include "trn/run/mpirun_command.hpp"

#include <gtest/gtest.h>

#include "trn/common/error.hpp"

namespace {

using trn::run::MpirunRequest;

MpirunRequest request() {
  MpirunRequest r;
  r.hostfile = "/etc/mpi/hostfile";
  r.hosts = trn::run::hostfile_hosts(
      "# MPI Operator\nllama-worker-0.llama slots=1\n\nllama-worker-1.llama slots=1\n");
  r.trn_run = {"/usr/bin/trn-run", "llama2_7b", "--launcher", "mpi"};
  r.forward = {"PATH", "TRN_CACHE_SHARED"};
  return r;
}

}  // namespace

TEST(MpirunCommand, OneTrnRunPerHostWithTheFirstHostAsTheMainNode) {
  const std::vector<std::string> expected = {"mpirun",
                                             "-N",
                                             "1",
                                             "--hostfile",
                                             "/etc/mpi/hostfile",
                                             "-x",
                                             "PATH",
                                             "-x",
                                             "TRN_CACHE_SHARED",
                                             "-x",
                                             "MASTER_ADDR=llama-worker-0.llama",
                                             "/usr/bin/trn-run",
                                             "llama2_7b",
                                             "--launcher",
                                             "mpi"};
  EXPECT_EQ(trn::run::mpirun_command(request()), expected);
}

TEST(MpirunCommand, TheUsersMasterAddrIsForwardedAndRootIsAllowed) {
  auto r = request();
  r.master_addr_set = true;
  r.forward.emplace_back("MASTER_ADDR");
  r.as_root = true;
  const auto argv = trn::run::mpirun_command(r);
  EXPECT_EQ(argv[5], "--allow-run-as-root");
  for (const auto& word : argv) EXPECT_EQ(word.find("MASTER_ADDR="), std::string::npos) << word;
}

TEST(MpirunCommand, AnEmptyHostfileIsAnErrorNamingIt) {
  auto r = request();
  r.hosts = trn::run::hostfile_hosts("# nothing yet\n");
  try {
    trn::run::mpirun_command(r);
    FAIL() << "no error";
  } catch (const trn::Error& error) {
    EXPECT_NE(std::string(error.what()).find("/etc/mpi/hostfile lists no host"), std::string::npos);
  }
}

TEST(MpirunCommand, ForwardsTheToolsPathsAndTheUsersTrainingVariablesOnly) {
  const auto forward = trn::run::variables_to_forward(
      {"HOME", "PATH", "NEURON_RT_LOG_LEVEL", "FI_EFA_USE_DEVICE_RDMA", "TRN_CACHE_SHARED",
       "OMPI_MCA_plm_rsh_agent", "MASTER_PORT", "PYTHONPATH", "SSH_AUTH_SOCK"});
  const std::vector<std::string> expected = {
      "FI_EFA_USE_DEVICE_RDMA", "MASTER_PORT", "NEURON_RT_LOG_LEVEL", "PATH", "PYTHONPATH",
      "TRN_CACHE_SHARED"};
  EXPECT_EQ(forward, expected);
}
