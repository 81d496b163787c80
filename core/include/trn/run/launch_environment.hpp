#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trn/run/slurm_allocation.hpp"

namespace trn::run {

// Who started this trn-run, and so where the node's identity comes from (docs/launchers.md).
enum class Launcher { kSlurm, kTorchrun, kMpi, kBatch, kSageMaker, kLocal };

std::string_view to_string(Launcher launcher);
// --launcher's value: slurm, torchrun, mpi, batch, sagemaker or local; anything else throws
// trn::Error listing them.
Launcher launcher_named(std::string_view name);

struct LaunchEnvironment {
  Launcher launcher = Launcher::kLocal;
  std::string reason;  // why this launcher: "--launcher mpi", "SLURM_JOB_ID is set", ...
  unsigned nodes = 1;
  unsigned node_rank = 0;  // 0 on the main node, which plans, compiles and hosts the rendezvous
  // The main node's address or host name; "" where this node is the main one or the launcher
  // finds it itself (Slurm: the first node of the allocation).
  std::string main_host;
  std::vector<std::string> hosts;  // every node in rank order, where the launcher lists them
  // The launcher's name for the job, the same on every node and every retry (AWS_BATCH_JOB_ID
  // without its "#<node index>", SageMaker's TRAINING_JOB_NAME), made safe for a folder name;
  // "" where it gives none.
  std::string run_name;
};

struct LaunchInputs {
  EnvLookup env;
  std::optional<Launcher> forced;  // --launcher
  // The text of SageMaker's /opt/ml/input/config/resourceconfig.json and of Open MPI's hostfile
  // (the MPI Operator's /etc/mpi/hostfile), "" where there is none.
  std::string sagemaker_resource_config;
  std::string mpi_hostfile;
};

// The launcher: --launcher when given, else the first whose variables are set, in this order:
// torchrun (TORCHELASTIC_RUN_ID), Slurm (SLURM_JOB_ID), Open MPI (OMPI_COMM_WORLD_SIZE), AWS Batch
// (AWS_BATCH_JOB_NODE_INDEX or _NUM_NODES), SageMaker (SM_HOSTS or resourceconfig.json), else
// local. MASTER_ADDR set by the user names the main host everywhere but Slurm. A partial or
// contradictory environment throws trn::Error naming the variable and the fix.
LaunchEnvironment detect_launch_environment(const LaunchInputs& inputs);

// The text of a file a launcher writes for its nodes (SageMaker's resourceconfig.json, the MPI
// Operator's hostfile): "" where there is none. One that is there but cannot be what the launcher
// wrote - not a regular file (a FIFO, a folder, a device), empty, larger than 1 MiB or unreadable -
// throws trn::Error naming it: taken for "no launcher" it would make every node train alone.
std::string read_launcher_file(const std::filesystem::path& path);

// The hosts of an Open MPI hostfile ("<host> slots=<n>" lines, # comments), in its order.
std::vector<std::string> hostfile_hosts(const std::string& text);

// SageMaker's host names in node order: by their number (algo-2 before algo-10), not as text.
std::vector<std::string> sagemaker_host_order(std::vector<std::string> hosts);

}  // namespace trn::run
