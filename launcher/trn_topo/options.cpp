#include "options.hpp"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdlib>
#include <sstream>

#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/hostlist.hpp"
#include "trn/common/whole_number.hpp"

namespace trn::topo_tool {
namespace po = boost::program_options;

namespace {

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

std::uint32_t from_env(const char* name) {
  const auto value = env_value(name);
  if (!value) return 0;
  char* end = nullptr;
  const unsigned long parsed = std::strtoul(value->c_str(), &end, 10);
  return (!value->empty() && *end == '\0') ? static_cast<std::uint32_t>(parsed) : 0;
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options out;
  std::string fsroot = "/", bind = "numa", efa = "auto", nodelist;
  std::string neuron_ls, cpus, cores, devices, compile_cache;
  // Counts are read as text and range-checked: Boost reads "-1" as 2^32 - 1 into an unsigned.
  std::string tasks = "1", nodes = "1", node_id = "0", cores_per_task, lnc, job_id, step_id = "0";
  po::options_description desc(
      "Usage: trn-topo [options]\n"
      "Shows the node's Neuron devices, cores, NUMA nodes and EFA devices, and the placement\n"
      "and environment each task of a step would get (the SPANK plugin's code path).\n"
      "Variables already set in your environment are kept, as the plugin would keep them.\n"
      "Options");
  auto add = desc.add_options();
  add("help,h", "this text");
  add("version", "print the version and exit");
  add("fsroot", po::value(&fsroot), "filesystem root to read (default /; a recorded tree)");
  add("neuron-ls", po::value(&neuron_ls),
      "recorded `neuron-ls -j` output (default: run /opt/aws/neuron/bin/neuron-ls when the root "
      "is /)");
  add("cache", po::value<std::string>(),
      "topology cache to use when valid for this root and boot (/run/trn-slurm/topology.json)");
  add("tasks", po::value(&tasks), "tasks of the step on this node, 1-1024 (default 1)");
  add("cores-per-task", po::value(&cores_per_task),
      "NeuronCores per task, 1-1024 (default all / tasks)");
  add("neuron-cores-per-task", po::value(&cores_per_task),
      "the same, under the srun option's name that error messages use");
  add("bind", po::value(&bind), "CPU binding: numa (default), cores or none");
  add("lnc", po::value(&lnc), "logical NeuronCore config on Trainium2: 1 or 2");
  add("cpus", po::value(&cpus), "CPUs the step may use, e.g. 0-31,64-95");
  add("cores", po::value(&cores), "Slurm core ids the step may use (S_STEP_ALLOC_CORES)");
  add("devices", po::value(&devices), "Neuron devices granted to the step (SLURM_STEP_GPUS)");
  add("nodes", po::value(&nodes), "nodes in the step, 1-65536 (default 1)");
  add("node-id", po::value(&node_id), "this node's rank in the step, 0 to nodes-1 (default 0)");
  add("nodelist", po::value(&nodelist), "the step's Slurm hostlist (default: this host)");
  add("job-id", po::value(&job_id),
      "job id for the rendezvous ports, 0-4294967295 (default $SLURM_JOB_ID or 0)");
  add("step-id", po::value(&step_id), "step id for the rendezvous ports, 0-4294967295 (default 0)");
  add("efa", po::value(&efa), "EFA use: auto (default), required or off");
  add("compile-cache", po::value(&compile_cache), "NEURON_COMPILE_CACHE_URL to set");
  add("json", "print JSON instead of text");
  add("no-fabric", "do not query libfabric for its providers");
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
  po::notify(vm);
  std::ostringstream help;
  help << desc;
  out.help_text = help.str();
  out.help = vm.count("help") > 0;
  out.json = vm.count("json") > 0;
  out.fabric = vm.count("no-fabric") == 0;

  auto& source = out.source;
  source.fsroot = fsroot;
  if (!neuron_ls.empty()) {
    source.neuron_ls = topology::NeuronLsSource::kFile;
    source.neuron_ls_file = neuron_ls;
  } else if (std::filesystem::path(fsroot).lexically_normal() == "/") {
    source.neuron_ls = topology::NeuronLsSource::kAuto;  // runs neuron-ls when installed
  } else {
    // Unlike the plugin, a recorded <fsroot>/neuron-ls.json is used only when named.
    source.neuron_ls = topology::NeuronLsSource::kOff;
  }
  if (vm.count("cache")) source.cache_file = vm["cache"].as<std::string>();
  source.write_cache = false;  // a look, not a step: the plugin owns the cache

  const auto count = [&](const std::string& text, const char* option, std::int64_t minimum,
                         std::int64_t maximum) {
    return static_cast<std::uint32_t>(parse_whole_number_in(text, option, minimum, maximum));
  };
  constexpr std::int64_t kMaxTasks = 1024;  // a node has at most 192 CPUs and 128 NeuronCores
  constexpr std::int64_t kMaxNodes = 65536;
  constexpr std::int64_t kMaxId = 4294967295;  // Slurm job and step ids are 32-bit
  const std::uint32_t task_count = count(tasks, "--tasks", 1, kMaxTasks);
  const std::uint32_t node_count = count(nodes, "--nodes", 1, kMaxNodes);

  auto& r = out.request;
  r.local_tasks = task_count;
  if (vm.count("cores-per-task") || vm.count("neuron-cores-per-task")) {
    r.cores_per_task = count(
        cores_per_task, vm.count("cores-per-task") ? "--cores-per-task" : "--neuron-cores-per-task",
        1, kMaxTasks);
  }
  r.bind = placement::parse_bind_mode(bind, "--bind");
  if (vm.count("lnc")) r.lnc = count(lnc, "--lnc", 1, 2);
  r.lnc_env = env_value(trn::env::kNeuronLogicalNcConfig);
  if (vm.count("cpus")) r.allowed_cpus = IdList::parse(cpus, "--cpus");
  if (vm.count("cores")) r.allowed_cores = IdList::parse(cores, "--cores");
  if (vm.count("devices")) r.allowed_devices = IdList::parse(devices, "--devices");

  auto& f = out.facts;
  f.job_id = vm.count("job-id") ? count(job_id, "--job-id", 0, kMaxId) : from_env("SLURM_JOB_ID");
  f.step_id = count(step_id, "--step-id", 0, kMaxId);
  f.nnodes = node_count;
  f.node_id = count(node_id, "--node-id", 0, node_count - 1);
  f.local_task_count = task_count;
  f.total_task_count = task_count * node_count;
  f.node_name = this_host();
  f.first_host = first_host(nodelist.empty() ? f.node_name : nodelist);

  out.env.efa = taskenv::parse_efa_mode(efa, "--efa");
  if (!compile_cache.empty()) out.env.compile_cache = compile_cache;
  return out;
}

}  // namespace trn::topo_tool
