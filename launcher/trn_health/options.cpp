#include "options.hpp"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <iostream>

#include "common/exit_codes.hpp"
#include "common/fabric_providers.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/neuron_tool_path.hpp"
#include "trn/common/node_name.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/topology/neuron_ls.hpp"

namespace po = boost::program_options;

namespace trn::health_tool {
namespace {

const char* const kUsage =
    "usage: trn-health [options]                    check this node\n"
    "       srun --ntasks-per-node=1 trn-health --step   check every node of the step\n"
    "       trn-health --slurm   as slurm.conf's HealthCheckProgram, through the trn-health-check\n"
    "                            wrapper in sbin (Slurm passes no arguments; runs as root)\n\n"
    "Checks one node: Neuron devices and NeuronCores against the instance type (and neuron-ls),\n"
    "error counters and NEURON_HW_ERR kernel log lines since the last clean check, EFA devices\n"
    "and libfabric's efa provider, EFA devices in error (admin commands never completed since\n"
    "the last clean check), and the node-local compile-cache tier. One line per check:\n"
    "node, check, ok|FAILED|warning|skipped, seconds, evidence. A warning is a check that could\n"
    "not run; it never makes the node unhealthy.\n\n"
    "--step adds the reach check: every node of the step reaches every other over TCP, and on\n"
    "Neuron nodes with nccom-test installed an all-reduce over the node's NeuronCores, correct\n"
    "and at a bus bandwidth of at least --min-busbw.\n"
    "The node's checks take at most 10 s in all: a tool or a peer too slow for it is a warning.\n"
    "--slurm drains an unhealthy node (Reason=\"trn-health: <check>: <evidence>\"), resumes a\n"
    "node it drained itself once it is healthy, and records the clean baseline.\n"
    "--accept records the node's current counters and kernel log as clean (after a repair).\n\n"
    "exit codes: 0 healthy; 1 unhealthy; 2 bad input; 3 stopped at --time-limit (nothing\n"
    "decided).\n";

std::uint64_t gib_to_bytes(const std::string& text) {
  return static_cast<std::uint64_t>(parse_whole_number_in(text, "--min-free-gib", 0, 1 << 20))
         << 30;
}

}  // namespace

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  std::string fsroot = "/", neuron_ls, neuron_tools, cache_dir, min_free = "1", deadline = "5000",
              state_dir, time_limit = "50", min_busbw = std::to_string(health::kDefaultMinBusbw);
  bool step = false, slurm = false, accept = false;
  const std::string min_busbw_help =
      "--step: the least bus bandwidth of nccom-test's all-reduce over the node's NeuronCores, "
      "GB/s as nccom-test prints it, 0-100000 (default " +
      std::to_string(health::kDefaultMinBusbw) + "; 0: no floor); below it the node is unhealthy";
  po::options_description described("options");
  described.add_options()("help,h", "this help")("version", "print the version and exit")(
      "json", po::bool_switch(&options.json), "one JSON object per node")(
      "step", po::bool_switch(&step), "in a Slurm step, one task per node: add the reach check")(
      "slurm", po::bool_switch(&slurm), "HealthCheckProgram mode: drain, resume, record")(
      "accept", po::bool_switch(&accept), "record the current state as the clean baseline")(
      "node", po::value(&options.node),
      "this node's Slurm name (default: $SLURMD_NODENAME, "
      "else the host name)")("fsroot", po::value(&fsroot),
                             "read the node below DIR (fixtures); %n is the node name")(
      "state-dir", po::value(&state_dir),
      "where the clean baseline lives (default: FSROOT/var/lib/trn-health)")(
      "neuron-ls", po::value(&neuron_ls),
      "a recorded `neuron-ls -j` (default: run neuron-ls when installed)")(
      "neuron-tools", po::value(&neuron_tools),
      "the folder of neuron-ls and nccom-test, run even below --fsroot (default: PATH, then "
      "/opt/aws/neuron/bin, on the real root only)")(
      "cache-dir", po::value(&cache_dir),
      "the node-local compile-cache tier (default: $NEURON_COMPILE_CACHE_URL when a folder)")(
      "min-free-gib", po::value(&min_free),
      "free space the cache tier needs, 0-1048576 (default 1)")(
      "reach-deadline-ms", po::value(&deadline),
      "--step: time to reach every node, 100-30000 (at most what is left of the 10 s budget)")(
      "min-busbw", po::value(&min_busbw), min_busbw_help.c_str())(
      "time-limit", po::value(&time_limit),
      "stop after S seconds whatever runs, 1-55 (default 50; Slurm kills a HealthCheckProgram at "
      "60)");
  po::variables_map values;
  try {
    po::store(po::command_line_parser(args).options(described).run(), values);
    po::notify(values);
  } catch (const po::error& error) {
    throw Error(std::string(error.what()) + "; see trn-health --help");
  }
  if (values.count("help")) {
    std::cout << kUsage << '\n' << described;
    std::exit(launcher::kSuccess);
  }
  if (int(step) + int(slurm) + int(accept) > 1) {
    throw Error("--step, --slurm and --accept are different modes: give one");
  }
  options.mode = step ? Mode::kStep : slurm ? Mode::kSlurm : accept ? Mode::kAccept : Mode::kNode;
  if (options.node.empty()) options.node = this_node_name();
  auto& checks = options.checks;
  checks.fsroot = expand_node_name(fsroot, options.node);
  std::error_code ec;
  if (!std::filesystem::is_directory(checks.fsroot, ec)) {
    throw Error("--fsroot " + checks.fsroot.string() +
                " is not a directory: give the node's root (/) or a recorded tree");
  }
  const bool real_root = std::filesystem::equivalent(checks.fsroot, "/", ec);
  options.state_dir = state_dir.empty()
                          ? checks.fsroot / "var/lib/trn-health"
                          : std::filesystem::path(expand_node_name(state_dir, options.node));
  // The Neuron tools of a recorded tree's node are not this machine's: run only when named.
  if (!neuron_tools.empty() && !std::filesystem::is_directory(neuron_tools, ec)) {
    throw Error("--neuron-tools " + neuron_tools +
                " is not a directory: give the folder holding neuron-ls and nccom-test");
  }
  const auto tool = [&](const char* name) -> std::optional<std::filesystem::path> {
    if (!neuron_tools.empty()) {
      const auto path = std::filesystem::path(neuron_tools) / name;
      return ::access(path.c_str(), X_OK) == 0 ? std::optional(path) : std::nullopt;
    }
    if (!real_root) return std::nullopt;
    return find_neuron_tool(name, env_value(env::kPath).value_or(""));
  };
  if (!neuron_ls.empty()) {
    checks.neuron_ls = topology::read_neuron_ls_file(expand_node_name(neuron_ls, options.node));
  } else {
    checks.neuron_ls_program = tool("neuron-ls");
  }
  options.nccom_test = tool("nccom-test");
  // A recorded tree says nothing about this machine's libfabric.
  if (real_root) checks.fabric = launcher::query_fabric_providers;
  if (!cache_dir.empty()) {
    checks.cache_dir = expand_node_name(cache_dir, options.node);
  } else if (auto url = env_value(env::kNeuronCompileCacheUrl);
             url && !url->empty() && url->find("://") == std::string::npos) {
    checks.cache_dir = *url;
    checks.cache_dir_is_node_tier = false;  // the job's cache: spank_trn's or the user's choice
  }
  checks.min_free_bytes = gib_to_bytes(min_free);
  options.reach_deadline =
      std::chrono::milliseconds(parse_whole_number_in(deadline, "--reach-deadline-ms", 100, 30000));
  options.time_limit =
      std::chrono::seconds(parse_whole_number_in(time_limit, "--time-limit", 1, 55));
  options.min_busbw =
      static_cast<unsigned>(parse_whole_number_in(min_busbw, "--min-busbw", 0, 100000));
  return options;
}

}  // namespace trn::health_tool
