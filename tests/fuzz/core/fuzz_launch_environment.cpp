// What trn-run learns from its launcher: the environment of torchrun, Slurm, Open MPI, AWS Batch
// or SageMaker (any variable may be missing, empty or garbage), SageMaker's resourceconfig.json,
// Open MPI's hostfile, srun's per-task variables and sinfo's node states.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "trn/common/error.hpp"
#include "trn/run/launch_environment.hpp"
#include "trn/run/slurm_allocation.hpp"
#include "trn/run/slurm_node_state.hpp"
#include "trn/run/slurm_task.hpp"

namespace {

// Every variable the launch environment, the allocation and the task are read from.
constexpr std::string_view kVariables[] = {
    "TORCHELASTIC_RUN_ID",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "MASTER_ADDR",
    "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
    "AWS_BATCH_JOB_ID",
    "AWS_BATCH_JOB_NODE_INDEX",
    "AWS_BATCH_JOB_NUM_NODES",
    "AWS_BATCH_JOB_MAIN_NODE_INDEX",
    "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS",
    "SM_HOSTS",
    "SM_CURRENT_HOST",
    "TRAINING_JOB_NAME",
    "SLURM_JOB_ID",
    "SLURM_JOB_NUM_NODES",
    "SLURM_NNODES",
    "SLURM_JOB_NODELIST",
    "SLURM_NODELIST",
    "SLURM_STEP_ID",
    "SLURM_RESTART_COUNT",
    "SLURM_JOB_PARTITION",
    "SLURM_JOB_CPUS_PER_NODE",
    "SLURM_GPUS_ON_NODE",
    "SLURM_NODEID",
    "SLURM_STEP_NUM_NODES",
    "SLURM_STEP_NUM_TASKS",
    "SLURM_STEP_TASKS_PER_NODE",
    "SLURM_LOCALID",
    "SLURM_PROCID",
    "SLURM_STEP_NODELIST",
    "SLURMD_NODENAME",
    "SLURM_STEP_GPUS",
    "SLURM_JOB_GPUS",
    "RANK",
    "LOCAL_RANK",
    "NODE_RANK",
    "MASTER_PORT",
};

template <typename Parse>
void attempt(Parse parse) {
  try {
    parse();
  } catch (const trn::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  std::map<std::string, std::string> variables;
  const auto count = input.ConsumeIntegralInRange<std::size_t>(0, 16);
  for (std::size_t i = 0; i < count && input.remaining_bytes() > 0; ++i) {
    const auto name =
        kVariables[input.ConsumeIntegralInRange<std::size_t>(0, std::size(kVariables) - 1)];
    variables[std::string(name)] = input.ConsumeRandomLengthString(64);
  }
  trn::run::LaunchInputs inputs;
  inputs.env = [&variables](const std::string& name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
  // --launcher: mostly absent, so that detection runs.
  if (input.ConsumeIntegralInRange(0, 3) == 0) {
    inputs.forced = static_cast<trn::run::Launcher>(input.ConsumeIntegralInRange(0, 5));
  }
  inputs.sagemaker_resource_config = input.ConsumeRandomLengthString(1024);
  inputs.mpi_hostfile = input.ConsumeRandomLengthString(1024);
  const auto sinfo_output = input.ConsumeRemainingBytesAsString();

  attempt([&] { trn::run::detect_launch_environment(inputs); });
  attempt([&] { trn::run::read_slurm_allocation(inputs.env); });
  attempt([&] { trn::run::read_slurm_task(inputs.env); });
  trn::run::unreachable_by_slurm(sinfo_output);
  return 0;
}
