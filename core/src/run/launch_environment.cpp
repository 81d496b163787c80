#include "trn/run/launch_environment.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "trn/common/whole_number.hpp"

namespace trn::run {
namespace {

constexpr std::array<std::pair<Launcher, std::string_view>, 6> kNames = {{
    {Launcher::kSlurm, "slurm"},
    {Launcher::kTorchrun, "torchrun"},
    {Launcher::kMpi, "mpi"},
    {Launcher::kBatch, "batch"},
    {Launcher::kSageMaker, "sagemaker"},
    {Launcher::kLocal, "local"},
}};

constexpr unsigned kMaxNodes = 65536;

// A variable the launcher must have set; its absence is an error naming it.
std::string required(const EnvLookup& env, const std::string& name, std::string_view launcher) {
  auto value = env(name);
  if (!value || value->empty()) {
    throw Error(std::string(launcher) + " launch: " + name + " is not set: trn-run reads it to " +
                "know its node; start trn-run the way docs/launchers.md shows, or pass the " +
                "right --launcher");
  }
  return *value;
}

unsigned number(const std::string& name, const std::string& value, unsigned minimum) {
  return static_cast<unsigned>(
      parse_whole_number_in(value, "environment variable " + name, minimum, kMaxNodes));
}

LaunchEnvironment from_torchrun(const EnvLookup& env) {
  LaunchEnvironment launch;
  launch.launcher = Launcher::kTorchrun;
  const auto world = number("WORLD_SIZE", required(env, "WORLD_SIZE", "torchrun"), 1);
  const auto local = number("LOCAL_WORLD_SIZE", required(env, "LOCAL_WORLD_SIZE", "torchrun"), 1);
  if (world % local != 0) {
    throw Error("torchrun launch: WORLD_SIZE=" + std::to_string(world) +
                " is not a multiple of LOCAL_WORLD_SIZE=" + std::to_string(local) +
                ": give every node the same --nproc_per_node");
  }
  launch.nodes = world / local;
  launch.node_rank = number("GROUP_RANK", required(env, "GROUP_RANK", "torchrun"), 0);
  if (launch.node_rank >= launch.nodes) {
    throw Error(
        "torchrun launch: GROUP_RANK=" + std::to_string(launch.node_rank) + " is not below the " +
        std::to_string(launch.nodes) +
        " nodes of WORLD_SIZE / LOCAL_WORLD_SIZE: the environment is not one torchrun gave");
  }
  launch.main_host = required(env, "MASTER_ADDR", "torchrun");
  return launch;
}

LaunchEnvironment from_slurm(const EnvLookup& env) {
  const auto allocation = read_slurm_allocation(env);
  if (!allocation) {
    throw Error(
        "slurm launch: SLURM_JOB_ID is not set: submit with sbatch, or pass the right "
        "--launcher");
  }
  LaunchEnvironment launch;
  launch.launcher = Launcher::kSlurm;
  launch.nodes = allocation->nnodes;
  if (const auto node_id = env("SLURM_NODEID"))
    launch.node_rank = number("SLURM_NODEID", *node_id, 0);
  return launch;
}

LaunchEnvironment from_mpi(const LaunchInputs& inputs) {
  const auto& env = inputs.env;
  LaunchEnvironment launch;
  launch.launcher = Launcher::kMpi;
  const auto size = number("OMPI_COMM_WORLD_SIZE", required(env, "OMPI_COMM_WORLD_SIZE", "mpi"), 1);
  const auto local =
      number("OMPI_COMM_WORLD_LOCAL_SIZE", required(env, "OMPI_COMM_WORLD_LOCAL_SIZE", "mpi"), 1);
  if (local != 1) {
    throw Error("mpi launch: OMPI_COMM_WORLD_LOCAL_SIZE=" + std::to_string(local) +
                ": trn-run starts a node's workers itself; run one trn-run per node (mpirun -N 1)");
  }
  launch.nodes = size;
  launch.node_rank =
      number("OMPI_COMM_WORLD_RANK", required(env, "OMPI_COMM_WORLD_RANK", "mpi"), 0);
  if (launch.node_rank >= size) {
    throw Error("mpi launch: OMPI_COMM_WORLD_RANK=" + std::to_string(launch.node_rank) +
                " is not below OMPI_COMM_WORLD_SIZE=" + std::to_string(size) +
                ": the environment is not one mpirun gave this process");
  }
  // Open MPI names no master: rank 0 runs on the hostfile's first host (mpirun's by-slot order).
  if (const auto hosts = hostfile_hosts(inputs.mpi_hostfile); !hosts.empty())
    launch.main_host = hosts.front();
  return launch;
}

// `name` with every character but letters, digits, '.', '_' and '-' replaced by '_'.
std::string folder_safe(std::string name) {
  for (auto& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  return name == "." || name == ".." ? std::string() : name;
}

LaunchEnvironment from_batch(const EnvLookup& env) {
  LaunchEnvironment launch;
  launch.launcher = Launcher::kBatch;
  const auto nodes =
      number("AWS_BATCH_JOB_NUM_NODES", required(env, "AWS_BATCH_JOB_NUM_NODES", "batch"), 1);
  const auto index =
      number("AWS_BATCH_JOB_NODE_INDEX", required(env, "AWS_BATCH_JOB_NODE_INDEX", "batch"), 0);
  const auto main = number("AWS_BATCH_JOB_MAIN_NODE_INDEX",
                           required(env, "AWS_BATCH_JOB_MAIN_NODE_INDEX", "batch"), 0);
  for (const auto& [name, value] : {std::pair{"AWS_BATCH_JOB_NODE_INDEX", index},
                                    std::pair{"AWS_BATCH_JOB_MAIN_NODE_INDEX", main}}) {
    if (value >= nodes) {
      throw Error(std::string("batch launch: ") + name + "=" + std::to_string(value) +
                  " is not below AWS_BATCH_JOB_NUM_NODES=" + std::to_string(nodes) +
                  ": the environment is not one AWS Batch gave this container");
    }
  }
  launch.nodes = nodes;
  if (const auto job = env("AWS_BATCH_JOB_ID"))
    launch.run_name = folder_safe(job->substr(0, job->find('#')));
  // The main node is rank 0; the others follow it in index order.
  launch.node_rank = (index + nodes - main) % nodes;
  // Batch sets the main node's address only on the other nodes: the main node uses its own.
  if (index != main) {
    launch.main_host = required(env, "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", "batch");
    in_addr address{};
    if (::inet_pton(AF_INET, launch.main_host.c_str(), &address) != 1) {
      throw Error("batch launch: AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS='" +
                  launch.main_host +
                  "' is not an IPv4 address: AWS Batch sets the main node's private address "
                  "there; the environment is not one AWS Batch gave this container");
    }
  }
  return launch;
}

LaunchEnvironment from_sagemaker(const LaunchInputs& inputs) {
  const auto& env = inputs.env;
  std::vector<std::string> hosts;
  std::string current;
  std::string source;
  try {
    if (const auto sm_hosts = env("SM_HOSTS"); sm_hosts && !sm_hosts->empty()) {
      source = "SM_HOSTS";
      hosts = nlohmann::json::parse(*sm_hosts).get<std::vector<std::string>>();
      current = required(env, "SM_CURRENT_HOST", "sagemaker");
    } else if (!inputs.sagemaker_resource_config.empty()) {
      source = "resourceconfig.json";
      const auto config = nlohmann::json::parse(inputs.sagemaker_resource_config);
      hosts = config.at("hosts").get<std::vector<std::string>>();
      current = config.at("current_host").get<std::string>();
    } else {
      throw Error(
          "sagemaker launch: neither SM_HOSTS nor /opt/ml/input/config/resourceconfig.json "
          "says the hosts: run trn-run as the training job's entry point, or pass the "
          "right --launcher");
    }
  } catch (const nlohmann::json::exception& error) {
    throw Error("sagemaker launch: " + source + " is not the list of hosts SageMaker writes (" +
                error.what() + ")");
  }
  if (hosts.empty() || hosts.size() > kMaxNodes)
    throw Error("sagemaker launch: " + source + " lists " + std::to_string(hosts.size()) +
                " hosts; trn-run takes 1 to " + std::to_string(kMaxNodes));
  {
    auto sorted = hosts;
    std::sort(sorted.begin(), sorted.end());
    if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
      throw Error("sagemaker launch: " + source + " lists " + *twice +
                  " twice: every host of a training job is named once; the environment is not "
                  "one SageMaker gave");
  }
  hosts = sagemaker_host_order(std::move(hosts));
  const auto it = std::find(hosts.begin(), hosts.end(), current);
  if (it == hosts.end())
    throw Error("sagemaker launch: the current host '" + current + "' is not among the hosts " +
                source + " lists");
  LaunchEnvironment launch;
  launch.launcher = Launcher::kSageMaker;
  launch.nodes = static_cast<unsigned>(hosts.size());
  launch.node_rank = static_cast<unsigned>(it - hosts.begin());
  launch.main_host = hosts.front();
  launch.hosts = std::move(hosts);
  if (const auto job = env("TRAINING_JOB_NAME")) launch.run_name = folder_safe(*job);
  return launch;
}

LaunchEnvironment read(Launcher launcher, const LaunchInputs& inputs) {
  switch (launcher) {
    case Launcher::kTorchrun:
      return from_torchrun(inputs.env);
    case Launcher::kSlurm:
      return from_slurm(inputs.env);
    case Launcher::kMpi:
      return from_mpi(inputs);
    case Launcher::kBatch:
      return from_batch(inputs.env);
    case Launcher::kSageMaker:
      return from_sagemaker(inputs);
    case Launcher::kLocal:
      break;
  }
  return {};  // Launcher::kLocal: one node, rank 0
}

bool is_set(const EnvLookup& env, const char* name) {
  const auto value = env(name);
  return value && !value->empty();
}

// The launcher the environment says, and the variable that says it.
std::pair<Launcher, std::string> detected(const LaunchInputs& inputs) {
  const auto& env = inputs.env;
  if (is_set(env, "TORCHELASTIC_RUN_ID"))
    return {Launcher::kTorchrun, "TORCHELASTIC_RUN_ID is set"};
  if (is_set(env, "SLURM_JOB_ID")) return {Launcher::kSlurm, "SLURM_JOB_ID is set"};
  if (is_set(env, "OMPI_COMM_WORLD_SIZE")) return {Launcher::kMpi, "OMPI_COMM_WORLD_SIZE is set"};
  for (const auto* name : {"AWS_BATCH_JOB_NODE_INDEX", "AWS_BATCH_JOB_NUM_NODES"}) {
    if (is_set(env, name)) return {Launcher::kBatch, std::string(name) + " is set"};
  }
  if (is_set(env, "SM_HOSTS")) return {Launcher::kSageMaker, "SM_HOSTS is set"};
  if (!inputs.sagemaker_resource_config.empty())
    return {Launcher::kSageMaker, "/opt/ml/input/config/resourceconfig.json exists"};
  return {Launcher::kLocal, "no launcher's variables are set"};
}

}  // namespace

std::string_view to_string(Launcher launcher) {
  for (const auto& [value, name] : kNames) {
    if (value == launcher) return name;
  }
  return "local";
}

Launcher launcher_named(std::string_view name) {
  std::string choices;
  for (const auto& [value, text] : kNames) {
    if (text == name) return value;
    choices += (choices.empty() ? "" : ", ") + std::string(text);
  }
  throw Error("--launcher " + std::string(name) + ": unknown launcher; give one of " + choices);
}

LaunchEnvironment detect_launch_environment(const LaunchInputs& inputs) {
  auto [launcher, reason] = detected(inputs);
  if (inputs.forced) {
    launcher = *inputs.forced;
    reason = "--launcher " + std::string(to_string(launcher));
  }
  auto launch = read(launcher, inputs);
  launch.reason = std::move(reason);
  if (const auto master = inputs.env("MASTER_ADDR");
      master && !master->empty() && launcher != Launcher::kSlurm) {
    launch.main_host = *master;  // the user's MASTER_ADDR wins
  }
  if (launch.launcher == Launcher::kMpi && launch.main_host.empty() && launch.node_rank != 0) {
    throw Error(
        "mpi launch: no main node: /etc/mpi/hostfile (the MPI Operator's) is missing and "
        "MASTER_ADDR is not set; pass rank 0's host with mpirun -x MASTER_ADDR=HOST");
  }
  return launch;
}

std::vector<std::string> hostfile_hosts(const std::string& text) {
  std::vector<std::string> hosts;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (words >> host) hosts.push_back(std::move(host));
  }
  return hosts;
}

std::vector<std::string> sagemaker_host_order(std::vector<std::string> hosts) {
  // "algo-<N>": by the text before the number, then by the number (none counts as -1).
  const auto key = [](const std::string& host) {
    const auto digits = host.find_last_not_of("0123456789") + 1;
    const auto number = parse_whole_number(std::string_view(host).substr(digits));
    return std::pair{host.substr(0, digits), number.value_or(-1)};
  };
  std::stable_sort(hosts.begin(), hosts.end(),
                   [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  return hosts;
}

std::string read_launcher_file(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::symlink_status(path, error).type() == std::filesystem::file_type::not_found)
    return "";
  constexpr std::size_t kMaxLauncherFileBytes = 1u << 20;
  const auto read = try_read_regular_file(path, kMaxLauncherFileBytes);
  if (!read.ok()) {
    const std::string why =
        read.error_number == EFBIG ? "it is larger than 1 MiB" : read_failure_reason(read);
    throw Error("cannot read " + path.string() + " (" + why +
                "): the launcher writes it for trn-run to know its nodes; remove it if no "
                "launcher started this machine, or pass the right --launcher");
  }
  if (trim(read.text).empty()) {
    throw Error(path.string() +
                " is empty: the launcher writes the nodes there; remove it if no launcher "
                "started this machine, or pass the right --launcher");
  }
  return read.text;
}

}  // namespace trn::run
