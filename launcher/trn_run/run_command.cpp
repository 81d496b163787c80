#include "run_command.hpp"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>

#include "common/exit_codes.hpp"
#include "common/node_drain.hpp"
#include "compile_phase.hpp"
#include "health_gate.hpp"
#include "in_job_recovery.hpp"
#include "install_layout.hpp"
#include "job_outcome.hpp"
#include "mpirun_start.hpp"
#include "node_facts.hpp"
#include "own_workers.hpp"
#include "plan_forecast.hpp"
#include "planned_instance.hpp"
#include "step_nodes.hpp"
#include "step_setup.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/process.hpp"
#include "trn/common/text_file.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/forecast/sweep_report.hpp"
#include "trn/plan/command_template.hpp"
#include "trn/plan/plan.hpp"
#include "trn/plan/plan_report.hpp"
#include "trn/plan/profile_keys.hpp"
#include "trn/plan/profile_search.hpp"
#include "trn/plan/task_command.hpp"
#include "trn/run/launch_environment.hpp"
#include "trn/run/requeue_decision.hpp"
#include "trn/run/run_continuation.hpp"
#include "trn/run/slurm_allocation.hpp"
#include "trn/run/spare_swap.hpp"

namespace po = boost::program_options;

namespace trn::launcher {
namespace {

struct RunOptions {
  std::string profile;
  std::vector<std::string> sets;
  std::vector<std::pair<std::string, std::string>> flags;  // common keys given as flags
  std::optional<unsigned> nodes;
  std::optional<std::string> instance_type;  // the compute nodes' type, for plans without them
  std::optional<std::string> run_dir;        // --run-dir or --resume: continue a run there
  bool resume = false;                       // --resume: run_dir must hold an earlier run
  bool plan_only = false;
  bool json = false;
  bool force_compile = false;
  bool health_check = true;  // --no-health-check turns the gate off
  std::optional<std::string> cache_shared;
  std::optional<run::Launcher> launcher;  // --launcher: who started trn-run, else detected
  std::string fsroot = "/";
  std::vector<std::string> trainer_args;
  ForecastOptions forecast;
};

const char* const kUsage =
    "usage: trn-run PROFILE [options] [-- trainer args]\n"
    "       sbatch --exclusive --nodes=N trn-run PROFILE [options]\n"
    "       mpirun -N 1 trn-run PROFILE [options]     (or trn-run --launcher mpi PROFILE)\n\n"
    "Plans the job from PROFILE (a bundled name or a YAML file) and the nodes Slurm gave it,\n"
    "pulls the compile cache, pre-compiles when Neuron is present, trains, and resumes from the\n"
    "newest checkpoint; a node failure requeues the job.\n\n"
    "Outside a job, --plan plans for the compute nodes' instance type: --instance-type, else\n"
    "the partition's (from its nodes' Slurm features), else the profile's instance_type.\n\n"
    "A run stopped by scancel or a time limit continues in a new job from its newest\n"
    "checkpoint: sbatch --nodes=N trn-run PROFILE --resume RUN_DIR (trn-run prints RUN_DIR\n"
    "when it starts).\n\n"
    "Outside Slurm, one trn-run per node starts that node's workers itself: on one instance\n"
    "(--launcher local on a Slurm head or login node), as the command of every node of an AWS\n"
    "Batch multi-node job or every host of a SageMaker job, or under mpirun; the launcher is\n"
    "detected and named in the plan (docs/launchers.md).\n\n"
    "exit codes: 0 done; 1 training failed (the same exception on every rank); 2 bad input;\n"
    "3 compilation failed; 4 a node failed and the job was requeued; 5 a node failed and no\n"
    "restart is left (outside Slurm: restart the job - the platform's retry - to resume).\n";

const char* const kCompileUsage =
    "usage: srun trn-compile PROFILE [options] [-- trainer args]\n"
    "       trn-compile PROFILE [options]      (in a batch script: starts the srun step itself)\n\n"
    "Runs only trn-run's compile phase: neuron_parallel_compile around the profile's training\n"
    "command for its compile_steps steps, one agent per node, so that the training job that\n"
    "follows finds every graph in the compile cache. It plans exactly as trn-run does (same\n"
    "profile, options and trainer arguments), pulls the shared cache tier first and pushes new\n"
    "entries after. Without neuron_parallel_compile it exits 0 on CPU or GPU nodes and 2 on\n"
    "Neuron nodes.\n\n"
    "exit codes: 0 done (or nothing to compile); 2 bad input or no neuron_parallel_compile on a\n"
    "Neuron node; 3 compilation failed.\n";

RunOptions parse_run_options(const std::vector<std::string>& args, Mode mode) {
  RunOptions options;
  std::vector<std::string> before_dashes;
  bool after_dashes = false;
  for (const auto& arg : args) {
    if (after_dashes)
      options.trainer_args.push_back(arg);
    else if (arg == "--")
      after_dashes = true;
    else
      before_dashes.push_back(arg);
  }
  po::options_description described("options");
  std::string micro_batch, global_batch, steps, lr, data, scaling, output_root, max_restarts;
  std::string spare_nodes, hang_timeout;
  std::string price_on_demand, price_reserved;
  bool replace_stragglers = false;
  std::string nodes;  // text, range-checked: Boost reads "-16" as 2^32 - 16 into an unsigned
  described.add_options()("help,h", "this help")("profile", po::value(&options.profile),
                                                 "bundled profile name or YAML file")(
      "set", po::value(&options.sets)->composing(),
      "KEY=VALUE: override a profile key (repeatable)")(
      "nodes", po::value(&nodes),
      "plan for N nodes, 1-65536 (outside Slurm; use with --plan; in a job: the job's node count)")(
      "instance-type", po::value<std::string>(),
      "plan for nodes of this EC2 type (e.g. trn1.32xlarge) where no job shows them")(
      "run-dir", po::value<std::string>(),
      "use this run directory (resumes from its newest checkpoint)")(
      "resume", po::value<std::string>(),
      "RUN_DIR: continue an earlier run (a new job after scancel or a time limit)")(
      "plan", po::bool_switch(&options.plan_only), "print the plan and run nothing")(
      "json", po::bool_switch(&options.json), "print the plan as JSON")(
      "force-compile", po::bool_switch(&options.force_compile),
      "compile even when the cache has this configuration")(
      "no-health-check", po::bool_switch(), "do not run trn-health on the nodes before compiling")(
      "micro-batch", po::value(&micro_batch), "sequences per worker per micro-step, 1-1048576")(
      "global-batch", po::value(&global_batch), "sequences per optimizer step, 1-2147483647")(
      "steps", po::value(&steps), "optimizer steps, 1-2147483647")(
      "lr", po::value(&lr), "peak learning rate")("data", po::value(&data), "data directory")(
      "scaling", po::value(&scaling), "strong or weak")("output-root", po::value(&output_root),
                                                        "where run directories go")(
      "max-restarts", po::value(&max_restarts),
      "restarts allowed after node failures (in the job with a spare, else requeues), "
      "0-2147483647")(
      "spare-nodes", po::value(&spare_nodes),
      "K: train on the job's first N-K nodes and keep K to replace a lost, hung or straggling one "
      "(profile key spare_nodes)")(
      "hang-timeout", po::value(&hang_timeout),
      "least seconds without a completed step before the step counts as hung (profile key "
      "hang_timeout; the watchdog also waits 5 median steps)")(
      "replace-stragglers", po::bool_switch(&replace_stragglers),
      "swap a straggling node for a spare at the next checkpoint")(
      "cache-shared", po::value<std::string>(),
      "shared compile-cache tier (default: $TRN_CACHE_SHARED)")(
      "sweep", po::value<std::string>(),
      "COUNTS: with --plan, forecast the profile on each node count (1,2,4,8,16 or 1-64): "
      "throughput, time to train and cost, or why a count cannot run")(
      "calibrate", po::value<std::string>(),
      "RUN_DIR: calibrate the forecast with a finished run's measurements instead of Neuron's "
      "published results")("csv", po::bool_switch(&options.forecast.csv),
                           "print the --sweep as CSV")(
      "png", po::value<std::string>(),
      "FILE: plot the --sweep's efficiency and cost against nodes")(
      "price-on-demand", po::value(&price_on_demand),
      "USD per node-hour on demand, for the forecast")(
      "price-reserved", po::value(&price_reserved), "USD per node-hour reserved, for the forecast")(
      "launcher", po::value<std::string>(),
      "slurm, torchrun, mpi, batch, sagemaker or local: who started trn-run (default: detected "
      "from the environment; docs/launchers.md)")(
      "fsroot", po::value(&options.fsroot),
      "filesystem root for node discovery and health (fixtures; %n: the node's name)");
  po::positional_options_description positional;
  positional.add("profile", 1);
  po::variables_map values;
  try {
    po::store(
        po::command_line_parser(before_dashes).options(described).positional(positional).run(),
        values);
    po::notify(values);
  } catch (const po::error& error) {
    throw Error(std::string(error.what()) + "; see " +
                (mode == Mode::kCompile ? "trn-compile" : "trn-run") + " --help");
  }
  if (values.count("help")) {
    std::cout << (mode == Mode::kCompile ? kCompileUsage : kUsage) << '\n' << described;
    std::exit(kSuccess);
  }
  if (options.profile.empty()) throw Error("no profile given; usage: trn-run PROFILE [options]");
  if (values.count("nodes")) {
    options.nodes =
        static_cast<unsigned>(parse_whole_number_in(nodes, "--nodes", 1, plan::kMaxProfileNodes));
  }
  options.health_check = !values["no-health-check"].as<bool>();
  if (values.count("sweep")) options.forecast.sweep = values["sweep"].as<std::string>();
  if (values.count("calibrate")) options.forecast.calibrate = values["calibrate"].as<std::string>();
  if (values.count("png")) options.forecast.png = values["png"].as<std::string>();
  if ((options.forecast.sweep || options.forecast.csv || options.forecast.png) &&
      !options.plan_only) {
    throw Error(
        "--sweep, --csv and --png forecast a plan: add --plan (trn-run PROFILE --plan "
        "--sweep 1,2,4,8,16)");
  }
  if ((options.forecast.csv || options.forecast.png) && !options.forecast.sweep) {
    throw Error("--csv and --png print a sweep: add --sweep COUNTS");
  }
  const auto price = [](const std::string& text, const char* option) -> std::optional<double> {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !(value >= 0 && value <= 1e6)) {
      throw Error(std::string(option) + " '" + text +
                  "': give USD per node-hour as a number from 0 to 1000000");
    }
    return std::optional<double>(value);
  };
  options.forecast.prices.on_demand = price(price_on_demand, "--price-on-demand");
  options.forecast.prices.reserved = price(price_reserved, "--price-reserved");
  if (values.count("cache-shared")) options.cache_shared = values["cache-shared"].as<std::string>();
  if (values.count("launcher")) {
    options.launcher = run::launcher_named(values["launcher"].as<std::string>());
  }
  if (values.count("instance-type")) {
    options.instance_type = values["instance-type"].as<std::string>();
  }
  if (values.count("run-dir") && values.count("resume")) {
    throw Error(
        "--run-dir and --resume both name the run directory: give one (--resume RUN_DIR "
        "continues an earlier run)");
  }
  options.resume = values.count("resume") > 0;
  if (options.resume) options.run_dir = values["resume"].as<std::string>();
  if (values.count("run-dir")) options.run_dir = values["run-dir"].as<std::string>();
  if (options.run_dir && options.run_dir->empty()) {
    throw Error(std::string(options.resume ? "--resume" : "--run-dir") +
                " is empty: give the run directory");
  }
  const std::pair<const char*, std::string*> flag_keys[] = {{"micro_batch", &micro_batch},
                                                            {"global_batch", &global_batch},
                                                            {"steps", &steps},
                                                            {"lr", &lr},
                                                            {"data", &data},
                                                            {"scaling", &scaling},
                                                            {"output_root", &output_root},
                                                            {"max_restarts", &max_restarts},
                                                            {"spare_nodes", &spare_nodes},
                                                            {"hang_timeout", &hang_timeout}};
  for (const auto& [key, value] : flag_keys) {
    if (!value->empty()) options.flags.emplace_back(key, *value);
  }
  if (replace_stragglers) options.flags.emplace_back("replace_stragglers", "true");
  return options;
}

// Who started trn-run (docs/launchers.md#detection): --launcher, else the environment's
// variables; SageMaker's resource file and the MPI Operator's hostfile where they exist.
run::LaunchEnvironment detect_launcher(const RunOptions& options, const run::EnvLookup& env) {
  run::LaunchInputs inputs;
  inputs.env = env;
  inputs.forced = options.launcher;
  const auto text_of = [](const char* path) {
    auto read = try_read_regular_file(path, kMaxTextFileBytes);
    return read.ok() ? std::move(read.text) : std::string();
  };
  inputs.sagemaker_resource_config = text_of("/opt/ml/input/config/resourceconfig.json");
  inputs.mpi_hostfile = text_of("/etc/mpi/hostfile");
  return run::detect_launch_environment(inputs);
}

// The plan's line naming the launcher and why it was chosen.
std::string launcher_line(const run::LaunchEnvironment& launch) {
  return "launcher          " + std::string(run::to_string(launch.launcher)) + " (" +
         launch.reason + ")\n";
}

nlohmann::json launcher_json(const run::LaunchEnvironment& launch) {
  return {{"name", run::to_string(launch.launcher)}, {"reason", launch.reason}};
}

// trn-run starts its own node's workers under these launchers (docs/launchers.md#own-workers);
// Slurm's srun starts them in a job.
bool starts_own_workers(run::Launcher launcher) {
  return launcher != run::Launcher::kSlurm && launcher != run::Launcher::kTorchrun;
}

// A machine with a Slurm client configuration (a cluster's head or login node) that no launcher
// started: training here is rarely what was meant.
bool slurm_submit_host() {
  return env_value("SLURM_CONF").has_value() || std::filesystem::exists("/etc/slurm/slurm.conf");
}

// Why trn-run cannot train as started, or "" when it can.
std::string cannot_train(const run::LaunchEnvironment& launch,
                         const std::optional<run::SlurmAllocation>& allocation,
                         const RunOptions& options) {
  const auto& profile = options.profile;
  const std::string submit = "submit with `sbatch --nodes=N trn-run " + profile +
                             "`, or see the plan with `trn-run " + profile + " --nodes N --plan`";
  if (launch.launcher == run::Launcher::kSlurm && !allocation) {
    return "--launcher slurm outside a Slurm job: " + submit;
  }
  if (launch.launcher == run::Launcher::kTorchrun) {
    return "started by torchrun (" + launch.reason +
           "): trn-run starts torchrun itself; run `trn-run " + profile +
           "` once per node instead (docs/launchers.md)";
  }
  if (launch.launcher == run::Launcher::kLocal && !options.launcher && slurm_submit_host()) {
    return "not inside a Slurm job, on a machine with a Slurm configuration (a head or login "
           "node): " +
           submit + "; or train on this machine with --launcher local";
  }
  return "";
}

// Slurm ends a job at scancel or its time limit without a word from us: say up front how to go
// on from the checkpoints.
void print_how_to_continue(const plan::Plan& plan, const std::string& run_dir, unsigned nnodes,
                           const std::string& profile) {
  if (plan.resumable) {
    std::cout << "trn-run: run directory " << run_dir
              << "; if the job stops early (scancel, time limit), continue it with: sbatch --nodes="
              << nnodes << " trn-run " << profile << " --resume " << run_dir << '\n';
  } else {
    std::cout << "trn-run: run directory " << run_dir
              << "; the profile's command takes no checkpoint placeholder (see resume above): a "
                 "job that stops early starts over\n";
  }
  std::cout << std::flush;
}

// The run directory's name where no Slurm job names it: the launcher's job, the same on every
// node and retry; a single instance's run is named by its start time (--resume continues it).
std::string own_run_name(const run::LaunchEnvironment& launch) {
  if (!launch.run_name.empty()) return launch.run_name;
  if (launch.launcher != run::Launcher::kLocal) return std::string(run::to_string(launch.launcher));
  const auto now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "local-%Y%m%d-%H%M%S", &local);
  return stamp;
}

}  // namespace

int run_command(const std::vector<std::string>& args, Mode mode) {
  const auto started = std::chrono::steady_clock::now();
  const auto options = parse_run_options(args, mode);
  const auto layout = install_layout();
  const auto env_lookup = [](const std::string& name) { return env_value(name); };
  if (options.launcher == run::Launcher::kMpi && !options.plan_only && mode == Mode::kRun &&
      !env_value("OMPI_COMM_WORLD_SIZE")) {
    return start_on_every_host(args, layout);  // the MPI Operator's launcher: mpirun it
  }
  auto allocation = run::read_slurm_allocation(env_lookup);
  const auto launch = detect_launcher(options, env_lookup);
  const bool own_workers = starts_own_workers(launch.launcher);
  if (!(options.plan_only && options.nodes)) {
    if (const auto why = cannot_train(launch, allocation, options); !why.empty()) throw Error(why);
  }
  if (own_workers && !options.plan_only && options.nodes && *options.nodes != launch.nodes) {
    throw Error("--nodes " + std::to_string(*options.nodes) + " does not match the " +
                std::to_string(launch.nodes) + " node(s) " +
                std::string(run::to_string(launch.launcher)) + " started (" + launch.reason +
                "): drop --nodes");
  }
  if (own_workers) allocation.reset();  // --launcher local in a job: the job plays no part
  const bool agent = mode == Mode::kCompile && allocation && allocation->in_step;
  if (allocation && !agent && !options.plan_only && options.nodes &&
      *options.nodes != allocation->nnodes) {
    // Training on fewer nodes idles the rest; more fails every try (and is requeued).
    const auto given = std::to_string(*options.nodes);
    const auto has = std::to_string(allocation->nnodes);
    throw Error("--nodes " + given + " does not match job " + std::to_string(allocation->job_id) +
                ", which has " + has + " node(s): drop --nodes to train on the job's " + has +
                ", or submit with sbatch --nodes=" + given);
  }

  auto profile = plan::load_profile(options.profile,
                                    plan::profile_search_dirs(env_lookup, layout.profile_dirs));
  // SageMaker syncs /opt/ml/checkpoints with S3 and restores it when the job restarts.
  if (launch.launcher == run::Launcher::kSageMaker)
    plan::apply_override(profile, "output_root", "/opt/ml/checkpoints");
  for (const auto& [key, value] : options.flags) plan::apply_override(profile, key, value);
  for (const auto& assignment : options.sets) plan::apply_set_option(profile, assignment);

  std::vector<NodeFacts> nodes;
  bool job_nodes = false;  // the facts are the allocated nodes' own
  std::string this_node;
  if (own_workers && !(options.plan_only && options.nodes)) {
    // One trn-run per node, each planning alike from its own (uniform) node.
    const auto here = local_node_facts(options.fsroot);
    this_node = here.node;
    nodes.assign(launch.nodes, here);
    for (unsigned i = 0; i < launch.nodes; ++i) {
      if (i == launch.node_rank) continue;
      nodes[i].node = i < launch.hosts.size()               ? launch.hosts[i]
                      : i == 0 && !launch.main_host.empty() ? launch.main_host
                                                            : "node-" + std::to_string(i);
    }
  } else if (agent) {
    // One agent per node: every node plans alike from its own (uniform) topology.
    nodes.assign(allocation->nnodes, local_node_facts(options.fsroot));
  } else if (allocation && (!options.nodes || *options.nodes == allocation->nnodes)) {
    nodes = gather_node_facts(layout.bin_dir / "trn-launcher", allocation->nnodes, options.fsroot);
    check_plugin_active(nodes);
    job_nodes = true;
  } else if (const auto instance =
                 planned_instance(options.instance_type,
                                  allocation && !allocation->partition.empty()
                                      ? std::optional<std::string>(allocation->partition)
                                      : std::nullopt,
                                  profile.instance_type)) {
    // No allocation shows the compute nodes: this node (a head node, say) is not one of them.
    std::cerr << "trn-run: planning for " << instance->type << " nodes (" << instance->source
              << ")\n";
    nodes = planned_nodes(*instance, *options.nodes);
  } else {
    const auto local = local_node_facts(options.fsroot);
    for (unsigned i = 0; i < *options.nodes; ++i) nodes.push_back(local);
    for (auto& node : nodes) node.node.clear();
  }
  check_uniform(nodes);
  if (job_nodes)
    report_instance_mismatch(options.instance_type, profile.instance_type, nodes.front());
  const auto spares = static_cast<std::size_t>(profile.spare_nodes);
  if (spares > 0 && spares >= nodes.size()) {
    throw Error("spare_nodes " + std::to_string(spares) + " leaves none of the " +
                std::to_string(nodes.size()) + " node(s) to train on: keep fewer spares " +
                "(--spare-nodes) or submit with more nodes (sbatch --nodes=" +
                std::to_string(nodes.size() + spares) + ")");
  }
  // The job's first nodes train, its last `spares` wait to replace a lost one.
  const auto job_order = node_names(nodes);
  const auto selection =
      job_nodes ? run::select_training_nodes(job_order, {}, spares) : run::NodeSelection{};
  std::vector<plan::NodeCores> node_cores;
  node_cores.reserve(nodes.size());
  // By position, not name: an agent's or a planned job's nodes share one name.
  for (std::size_t i = 0; i < nodes.size() - spares; ++i)
    node_cores.push_back({nodes[i].node, nodes[i].neuron_cores});
  plan::PlanRequest request;
  request.cluster = plan::cluster_shape_of(
      node_cores, allocation ? std::optional(allocation->job_id) : std::nullopt);
  request.cluster.instance_type = nodes.front().instance_type;
  if (options.run_dir) request.run_dir = *options.run_dir;
  request.extra_args = options.trainer_args;
  request.home = env_value("HOME").value_or("");
  if (own_workers) {
    request.run_name = own_run_name(launch);
    // Every node decides alike: a committed checkpoint is there before any node trains.
    request.run_dir_decides = false;
  }
  request.continues_run = options.resume || (allocation && allocation->restart_count > 0);
  if (own_workers && !request.continues_run) {
    const auto planned = plan::make_plan(profile, request);
    request.continues_run = run::newest_checkpoint(planned.run_dir) >= 0;
  }
  auto plan = plan::make_plan(profile, request);
  plan.spare_nodes = selection.spares;
  if (agent) return compile_agent(compile_task_command(plan), step_environment(plan, layout));
  if (own_workers && plan.launch == plan::LaunchMode::kMpirun && !options.plan_only) {
    throw Error("profile " + options.profile +
                ": launch: mpirun makes the workers one MPI job, which srun --mpi=pmix starts "
                "inside a Slurm job; started by " +
                std::string(run::to_string(launch.launcher)) +
                ", trn-run starts them itself without MPI: use --set launch=per-core (each worker "
                "gets RANK, WORLD_SIZE and MASTER_ADDR) or submit with sbatch");
  }
  if (options.run_dir) {
    run::check_run_dir_continues(plan.run_dir, plan,
                                 (options.resume ? "--resume " : "--run-dir ") + *options.run_dir,
                                 options.resume);
  }

  if (options.plan_only) {
    if (options.forecast.sweep)
      return print_sweep(profile, request, plan, options.forecast, options.json,
                         layout.trainer_dir);
    std::string why_not;
    const auto setup = plan_forecast(plan, options.forecast, why_not);
    if (options.json) {
      auto doc = plan::to_json(plan);
      if (setup) doc["forecast"] = forecast::forecast_json(plan, *setup);
      doc["launcher"] = launcher_json(launch);
      std::cout << doc.dump(2) << '\n';
    } else {
      std::cout << forecast_headline(plan, setup, why_not) << '\n'
                << plan::render_plan_text(plan) << launcher_line(launch);
    }
    return kSuccess;
  }

  nlohmann::json phases = nlohmann::json::object();
  if (job_nodes && options.health_check) {
    // No job starts on a sick node: drain it and go on without it when the plan allows,
    // else requeue (the drained node is not scheduled again).
    const auto health_started = std::chrono::steady_clock::now();
    const auto gate = run_health_gate(layout.bin_dir / "trn-health", nodes, options.fsroot);
    phases["health"] = {{"seconds", seconds_since(health_started)}, {"nodes", gate.report}};
    if (!gate.unhealthy.empty()) {
      std::vector<std::string> excluded;
      for (const auto& sick : gate.unhealthy) excluded.push_back(sick.node);
      phases["health"]["excluded"] = excluded;
      run::FailureDiagnosis diagnosis;
      diagnosis.kind = run::FailureKind::kNodeFailure;
      diagnosis.summary =
          std::to_string(excluded.size()) + " unhealthy node(s): " + gate.unhealthy.front().reason;
      // A healthy spare takes an unhealthy node's place; without one the job goes on with
      // fewer nodes when the plan allows.
      const auto healthy = run::select_training_nodes(job_order, excluded, spares);
      if (healthy.nodes.empty()) return requeue_or_fail(plan, *allocation, diagnosis);
      std::vector<plan::NodeCores> cores;
      for (const auto& node : nodes) {
        if (std::find(healthy.nodes.begin(), healthy.nodes.end(), node.node) != healthy.nodes.end())
          cores.push_back({node.node, node.neuron_cores});
      }
      auto reduced = request;
      reduced.cluster = plan::cluster_shape_of(cores, allocation->job_id);
      reduced.cluster.instance_type = request.cluster.instance_type;
      try {
        auto replanned = plan::make_plan(profile, reduced);
        replanned.excluded_nodes = excluded;
        replanned.spare_nodes = healthy.spares;
        plan = std::move(replanned);
      } catch (const Error& error) {
        std::cerr << "trn-run: cannot go on without the unhealthy node(s): " << error.what()
                  << '\n';
        return requeue_or_fail(plan, *allocation, diagnosis);
      }
      std::cout << "trn-run: going on with the " << plan.nodes << " healthy node(s)"
                << (spares > 0 ? ", " + std::to_string(plan.spare_nodes.size()) + " spare(s) left"
                               : std::string())
                << '\n';
    }
  }

  std::filesystem::create_directories(plan.run_dir / "logs");
  auto plan_doc = plan::to_json(plan);
  plan_doc["launcher"] = launcher_json(launch);
  if (launch.node_rank == 0)
    write_file_atomically(plan.run_dir / "plan.json", plan_doc.dump(2) + "\n", 0644);
  // The forecast of the plan the job runs: its first line, and results.json's comparison.
  std::string why_not;
  const auto setup = plan_forecast(plan, options.forecast, why_not);
  std::optional<nlohmann::json> predicted;
  if (setup) predicted = forecast::forecast_json(plan, *setup);
  std::cout << forecast_headline(plan, setup, why_not) << '\n'
            << plan::render_plan_text(plan) << launcher_line(launch);
  const auto run_dir = std::filesystem::absolute(plan.run_dir).lexically_normal().string();
  if (own_workers) {
    std::cout << "trn-run: run directory " << run_dir
              << (plan.resume ? " (resuming from its newest checkpoint)" : "") << '\n'
              << std::flush;
  } else {
    print_how_to_continue(plan, run_dir, allocation->nnodes, options.profile);
    if (allocation->restart_count > 0) {
      std::cout << "trn-run: restart " << allocation->restart_count << ": resuming in "
                << plan.run_dir.string() << '\n';
    }
  }
  phases["plan_seconds"] = seconds_since(started);

  CompileRequest compile;
  compile.plan = &plan;
  // The shared tier: --cache-shared, else what the plugin told the node-facts step (cache_root=).
  compile.tiers =
      cache_tiers(options.cache_shared ? options.cache_shared
                                       : std::optional<std::string>(nodes.front().cache_shared));
  compile.launcher = layout.bin_dir / "trn-launcher";
  compile.trn_cache = layout.bin_dir / "trn-cache";
  compile.env = step_environment(plan, layout);
  compile.force = options.force_compile;
  if (own_workers) {
    OwnWorkersJob job{&plan,     &launch, &layout,   options.fsroot,
                      this_node, compile, predicted, mode == Mode::kCompile};
    return train_on_own_workers(job, phases, started);
  }
  if (const auto ended = pull_and_compile(compile, phases, mode == Mode::kCompile)) return *ended;
  phases["before_train_seconds"] = seconds_since(started);

  compile.plan = nullptr;  // the plan moves into the job
  TrainingJob job{std::move(plan), &profile,     request,        nodes,
                  &layout,         &*allocation, options.fsroot, job_nodes && options.health_check,
                  compile,         predicted};
  return train_with_recovery(job, phases, started);
}

}  // namespace trn::launcher
