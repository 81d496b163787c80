#include "trn/run/launch_environment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "trn/common/error.hpp"

namespace {

using testing::HasSubstr;
using trn::run::detect_launch_environment;
using trn::run::LaunchEnvironment;
using trn::run::Launcher;
using trn::run::LaunchInputs;
using Env = std::map<std::string, std::string>;

LaunchInputs inputs(const Env& vars) {
  LaunchInputs in;
  in.env = [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional(it->second);
  };
  return in;
}

std::string error_of(const LaunchInputs& in) {
  try {
    detect_launch_environment(in);
  } catch (const trn::Error& error) {
    return error.what();
  }
  return "";
}

const Env kBatchChild = {{"AWS_BATCH_JOB_NODE_INDEX", "2"},
                         {"AWS_BATCH_JOB_NUM_NODES", "3"},
                         {"AWS_BATCH_JOB_MAIN_NODE_INDEX", "0"},
                         {"AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", "10.0.1.5"}};

TEST(LaunchEnvironment, NothingSetIsOneLocalNode) {
  const auto launch = detect_launch_environment(inputs({}));
  EXPECT_EQ(launch.launcher, Launcher::kLocal);
  EXPECT_EQ(launch.nodes, 1U);
  EXPECT_EQ(launch.node_rank, 0U);
  EXPECT_EQ(launch.reason, "no launcher's variables are set");
}

TEST(LaunchEnvironment, SlurmGivesTheNodeCountAndTheStepsNodeId) {
  const auto launch = detect_launch_environment(inputs({{"SLURM_JOB_ID", "7"},
                                                        {"SLURM_JOB_NUM_NODES", "4"},
                                                        {"SLURM_JOB_NODELIST", "trn-[1-4]"},
                                                        {"SLURM_NODEID", "2"},
                                                        {"MASTER_ADDR", "ignored"}}));
  EXPECT_EQ(launch.launcher, Launcher::kSlurm);
  EXPECT_EQ(launch.reason, "SLURM_JOB_ID is set");
  EXPECT_EQ(launch.nodes, 4U);
  EXPECT_EQ(launch.node_rank, 2U);
  EXPECT_EQ(launch.main_host, "");  // Slurm's allocation says it, not MASTER_ADDR
}

TEST(LaunchEnvironment, TorchrunInsideSlurmIsTorchrun) {
  const auto launch = detect_launch_environment(inputs({{"TORCHELASTIC_RUN_ID", "x"},
                                                        {"SLURM_JOB_ID", "7"},
                                                        {"WORLD_SIZE", "64"},
                                                        {"LOCAL_WORLD_SIZE", "32"},
                                                        {"GROUP_RANK", "1"},
                                                        {"MASTER_ADDR", "node-a"}}));
  EXPECT_EQ(launch.launcher, Launcher::kTorchrun);
  EXPECT_EQ(launch.nodes, 2U);
  EXPECT_EQ(launch.node_rank, 1U);
  EXPECT_EQ(launch.main_host, "node-a");
}

TEST(LaunchEnvironment, OpenMpiRunsOneTrnRunPerNodeAndRankZeroIsOnTheHostfilesFirstHost) {
  auto in = inputs({{"OMPI_COMM_WORLD_SIZE", "3"},
                    {"OMPI_COMM_WORLD_RANK", "1"},
                    {"OMPI_COMM_WORLD_LOCAL_SIZE", "1"}});
  in.mpi_hostfile = "# MPI Operator\nworker-0.svc slots=1\nworker-1.svc slots=1\n";
  const auto launch = detect_launch_environment(in);
  EXPECT_EQ(launch.launcher, Launcher::kMpi);
  EXPECT_EQ(launch.nodes, 3U);
  EXPECT_EQ(launch.node_rank, 1U);
  EXPECT_EQ(launch.main_host, "worker-0.svc");
  EXPECT_THAT(error_of(inputs({{"OMPI_COMM_WORLD_SIZE", "64"},
                               {"OMPI_COMM_WORLD_RANK", "1"},
                               {"OMPI_COMM_WORLD_LOCAL_SIZE", "32"}})),
              HasSubstr("run one trn-run per node (mpirun -N 1)"));
}

TEST(LaunchEnvironment, OpenMpiWithoutAHostfileNeedsMasterAddrOnTheOtherRanks) {
  const Env rank1 = {{"OMPI_COMM_WORLD_SIZE", "2"},
                     {"OMPI_COMM_WORLD_RANK", "1"},
                     {"OMPI_COMM_WORLD_LOCAL_SIZE", "1"}};
  EXPECT_THAT(error_of(inputs(rank1)), HasSubstr("mpirun -x MASTER_ADDR=HOST"));
  auto with_master = rank1;
  with_master["MASTER_ADDR"] = "node-a";
  EXPECT_EQ(detect_launch_environment(inputs(with_master)).main_host, "node-a");
  auto rank0 = rank1;
  rank0["OMPI_COMM_WORLD_RANK"] = "0";
  EXPECT_EQ(detect_launch_environment(inputs(rank0)).main_host, "");  // it is the main node
}

TEST(LaunchEnvironment, TheRunIsNamedByTheLaunchersJob) {
  auto batch = kBatchChild;
  batch["AWS_BATCH_JOB_ID"] = "0b1c-2d#2";
  EXPECT_EQ(detect_launch_environment(inputs(batch)).run_name, "0b1c-2d");
  const auto sagemaker = detect_launch_environment(inputs({{"SM_HOSTS", R"(["algo-1"])"},
                                                           {"SM_CURRENT_HOST", "algo-1"},
                                                           {"TRAINING_JOB_NAME", "bert/../x y"}}));
  EXPECT_EQ(sagemaker.run_name, "bert_.._x_y");  // one folder, whatever the name holds
  EXPECT_EQ(detect_launch_environment(inputs({})).run_name, "");
}

TEST(LaunchEnvironment, BatchChildNodesUseTheMainAddressAndTheMainNodeItsOwn) {
  auto launch = detect_launch_environment(inputs(kBatchChild));
  EXPECT_EQ(launch.launcher, Launcher::kBatch);
  EXPECT_EQ(launch.nodes, 3U);
  EXPECT_EQ(launch.node_rank, 2U);
  EXPECT_EQ(launch.main_host, "10.0.1.5");
  launch = detect_launch_environment(inputs({{"AWS_BATCH_JOB_NODE_INDEX", "1"},
                                             {"AWS_BATCH_JOB_NUM_NODES", "3"},
                                             {"AWS_BATCH_JOB_MAIN_NODE_INDEX", "1"}}));
  EXPECT_EQ(launch.node_rank, 0U);  // the main node is rank 0 wherever Batch put it
  EXPECT_EQ(launch.main_host, "");
  launch = detect_launch_environment(
      inputs({{"AWS_BATCH_JOB_NODE_INDEX", "0"},
              {"AWS_BATCH_JOB_NUM_NODES", "3"},
              {"AWS_BATCH_JOB_MAIN_NODE_INDEX", "1"},
              {"AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", "10.0.1.6"}}));
  EXPECT_EQ(launch.node_rank, 2U);
}

TEST(LaunchEnvironment, APartialOrContradictoryBatchEnvironmentNamesTheVariable) {
  EXPECT_THAT(error_of(inputs({{"AWS_BATCH_JOB_NODE_INDEX", "1"}})),
              HasSubstr("batch launch: AWS_BATCH_JOB_NUM_NODES is not set"));
  auto child = kBatchChild;
  child.erase("AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS");
  EXPECT_THAT(error_of(inputs(child)),
              HasSubstr("AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS is not set"));
  child = kBatchChild;
  child["AWS_BATCH_JOB_NODE_INDEX"] = "3";
  EXPECT_THAT(error_of(inputs(child)),
              HasSubstr("AWS_BATCH_JOB_NODE_INDEX=3 is not below AWS_BATCH_JOB_NUM_NODES=3"));
  child = kBatchChild;
  child["AWS_BATCH_JOB_NUM_NODES"] = "three";
  EXPECT_THAT(error_of(inputs(child)), HasSubstr("AWS_BATCH_JOB_NUM_NODES"));
}

TEST(LaunchEnvironment, SageMakerHostsGoInNumericOrder) {
  EXPECT_EQ(trn::run::sagemaker_host_order({"algo-10", "algo-2", "algo-1"}),
            (std::vector<std::string>{"algo-1", "algo-2", "algo-10"}));
  auto in = inputs({});
  in.sagemaker_resource_config =
      R"({"current_host": "algo-10", "hosts": ["algo-1", "algo-10", "algo-2"]})";
  const auto launch = detect_launch_environment(in);
  EXPECT_EQ(launch.launcher, Launcher::kSageMaker);
  EXPECT_EQ(launch.reason, "/opt/ml/input/config/resourceconfig.json exists");
  EXPECT_EQ(launch.node_rank, 2U);  // after algo-2, though "algo-10" < "algo-2" as text
  EXPECT_EQ(launch.main_host, "algo-1");
  EXPECT_EQ(launch.nodes, 3U);
}

TEST(LaunchEnvironment, SageMakerVariablesAndTheirErrors) {
  const auto launch = detect_launch_environment(
      inputs({{"SM_HOSTS", R"(["algo-2","algo-1"])"}, {"SM_CURRENT_HOST", "algo-2"}}));
  EXPECT_EQ(launch.node_rank, 1U);
  EXPECT_EQ(launch.hosts, (std::vector<std::string>{"algo-1", "algo-2"}));
  EXPECT_THAT(error_of(inputs({{"SM_HOSTS", R"(["algo-1"])"}, {"SM_CURRENT_HOST", "algo-3"}})),
              HasSubstr("the current host 'algo-3' is not among the hosts SM_HOSTS lists"));
  EXPECT_THAT(error_of(inputs({{"SM_HOSTS", "algo-1"}, {"SM_CURRENT_HOST", "algo-1"}})),
              HasSubstr("SM_HOSTS is not the list of hosts SageMaker writes"));
  EXPECT_THAT(error_of(inputs({{"SM_HOSTS", "[]"}, {"SM_CURRENT_HOST", "algo-1"}})),
              HasSubstr("lists 0 hosts"));
}

TEST(LaunchEnvironment, AnExplicitLauncherWinsAndNeedsItsVariables) {
  auto in = inputs(
      {{"SLURM_JOB_ID", "7"}, {"SLURM_JOB_NUM_NODES", "1"}, {"SLURM_JOB_NODELIST", "trn-1"}});
  in.forced = Launcher::kLocal;
  const auto launch = detect_launch_environment(in);
  EXPECT_EQ(launch.launcher, Launcher::kLocal);
  EXPECT_EQ(launch.reason, "--launcher local");
  in.forced = Launcher::kMpi;
  EXPECT_THAT(error_of(in), HasSubstr("mpi launch: OMPI_COMM_WORLD_SIZE is not set"));
  EXPECT_EQ(trn::run::launcher_named("sagemaker"), Launcher::kSageMaker);
  try {
    trn::run::launcher_named("k8s");
    FAIL() << "k8s accepted";
  } catch (const trn::Error& error) {
    EXPECT_THAT(std::string(error.what()),
                HasSubstr("give one of slurm, torchrun, mpi, batch, sagemaker, local"));
  }
}

TEST(LaunchEnvironment, TheUsersMasterAddrWinsOutsideSlurm) {
  auto env = kBatchChild;
  env["MASTER_ADDR"] = "10.9.9.9";
  EXPECT_EQ(detect_launch_environment(inputs(env)).main_host, "10.9.9.9");
}

}  // namespace

namespace {

TEST(LaunchEnvironment, ContradictionsNameTheVariable) {
  EXPECT_THAT(error_of(inputs({{"SM_HOSTS", R"(["algo-1","algo-2","algo-1"])"},
                               {"SM_CURRENT_HOST", "algo-1"}})),
              HasSubstr("SM_HOSTS lists algo-1 twice"));
  std::string many = "[";
  for (int i = 1; i <= 70000; ++i)
    many += (i > 1 ? ",\"algo-" : "\"algo-") + std::to_string(i) + "\"";
  many += "]";
  EXPECT_THAT(error_of(inputs({{"SM_HOSTS", many}, {"SM_CURRENT_HOST", "algo-1"}})),
              HasSubstr("SM_HOSTS lists 70000 hosts; trn-run takes 1 to 65536"));
  EXPECT_THAT(error_of(inputs({{"OMPI_COMM_WORLD_SIZE", "2"},
                               {"OMPI_COMM_WORLD_LOCAL_SIZE", "1"},
                               {"OMPI_COMM_WORLD_RANK", "3"}})),
              HasSubstr("OMPI_COMM_WORLD_RANK=3 is not below OMPI_COMM_WORLD_SIZE=2"));
  EXPECT_THAT(error_of(inputs({{"TORCHELASTIC_RUN_ID", "x"},
                               {"WORLD_SIZE", "4"},
                               {"LOCAL_WORLD_SIZE", "2"},
                               {"GROUP_RANK", "2"},
                               {"MASTER_ADDR", "h"}})),
              HasSubstr("GROUP_RANK=2 is not below the 2 nodes"));
  auto child = kBatchChild;
  child["AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS"] = "main-node";
  EXPECT_THAT(error_of(inputs(child)),
              HasSubstr("AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS='main-node' is not an IPv4 "
                        "address"));
}

// A launcher's file that is there but is not what the launcher writes is an error naming it,
// never "no launcher" (every SageMaker host would then train alone).
TEST(LaunchEnvironment, ALaunchersFileThatCannotBeItsIsAnError) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "launcher-files";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "folder");
  const auto error_reading = [](const std::filesystem::path& path) -> std::string {
    try {
      trn::run::read_launcher_file(path);
    } catch (const trn::Error& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_EQ(trn::run::read_launcher_file(dir / "none.json"), "");
  std::ofstream(dir / "good.json") << R"({"current_host": "algo-1", "hosts": ["algo-1"]})";
  EXPECT_THAT(trn::run::read_launcher_file(dir / "good.json"), HasSubstr("algo-1"));
  std::ofstream(dir / "empty.json") << "\n";
  EXPECT_THAT(error_reading(dir / "empty.json"), HasSubstr("empty.json is empty"));
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0600), 0);
  EXPECT_THAT(error_reading(dir / "fifo.json"), HasSubstr("it is not a regular file"));
  EXPECT_THAT(error_reading(dir / "folder"), HasSubstr("it is a folder"));
  std::filesystem::create_symlink("/dev/zero", dir / "zero.json");
  EXPECT_THAT(error_reading(dir / "zero.json"), HasSubstr("it is not a regular file"));
  {
    std::ofstream big(dir / "big.json");
    big << std::string(20u << 20, ' ');
  }
  EXPECT_THAT(error_reading(dir / "big.json"), HasSubstr("larger than 1 MiB"));
  std::filesystem::remove_all(dir);
}

}  // namespace
