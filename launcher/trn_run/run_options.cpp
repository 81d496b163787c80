#include "run_options.hpp"

#include <boost/program_options.hpp>
#include <cstdlib>
#include <iostream>

#include "common/exit_codes.hpp"
#include "trn/common/error.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/plan/profile_keys.hpp"

namespace po = boost::program_options;

namespace trn::launcher {
namespace {

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

}  // namespace

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
  // trn-compile takes what shapes the compiled graphs and where they go; training, recovery and
  // forecast options are trn-run's alone (and an error for trn-compile, never ignored).
  const bool run = mode == Mode::kRun;
  auto add = described.add_options();
  add("help,h", "this help");
  add("version", "print the version and exit");
  add("profile", po::value(&options.profile), "bundled profile name or YAML file");
  add("set", po::value(&options.sets)->composing(),
      "KEY=VALUE: override a profile key (repeatable)");
  add("nodes", po::value(&nodes),
      "plan for N nodes, 1-65536 (outside Slurm; use with --plan; in a job: the job's node count)");
  add("instance-type", po::value<std::string>(),
      "plan for nodes of this EC2 type (e.g. trn1.32xlarge) where no job shows them");
  if (run) {
    add("run-dir", po::value<std::string>(),
        "use this run directory (resumes from its newest checkpoint)");
    add("resume", po::value<std::string>(),
        "RUN_DIR: continue an earlier run (a new job after scancel or a time limit)");
  }
  add("plan", po::bool_switch(&options.plan_only), "print the plan and run nothing");
  add("json", po::bool_switch(&options.json), "print the plan as JSON");
  add("force-compile", po::bool_switch(&options.force_compile),
      "compile even when the cache has this configuration");
  add("no-health-check", po::bool_switch(), "do not run trn-health on the nodes before compiling");
  add("micro-batch", po::value(&micro_batch), "sequences per worker per micro-step, 1-1048576");
  add("global-batch", po::value(&global_batch), "sequences per optimizer step, 1-2147483647");
  add("steps", po::value(&steps), "optimizer steps, 1-2147483647");
  add("lr", po::value(&lr), "peak learning rate");
  add("data", po::value(&data), "data directory");
  add("scaling", po::value(&scaling), "strong or weak");
  add("output-root", po::value(&output_root), "where run directories go");
  if (run) {
    add("max-restarts", po::value(&max_restarts),
        "restarts allowed after node failures (in the job with a spare, else requeues), "
        "0-2147483647");
    add("spare-nodes", po::value(&spare_nodes),
        "K: train on the job's first N-K nodes and keep K to replace a lost, hung or straggling "
        "one (profile key spare_nodes)");
    add("hang-timeout", po::value(&hang_timeout),
        "least seconds without a completed step before the step counts as hung (profile key "
        "hang_timeout; the watchdog also waits 5 median steps)");
    add("replace-stragglers", po::bool_switch(&replace_stragglers),
        "swap a straggling node for a spare at the next checkpoint");
  }
  add("cache-shared", po::value<std::string>(),
      "shared compile-cache tier (default: $TRN_CACHE_SHARED)");
  if (run) {
    add("sweep", po::value<std::string>(),
        "COUNTS: with --plan, forecast the profile on each node count (1,2,4,8,16 or 1-64): "
        "throughput, time to train and cost, or why a count cannot run");
    add("calibrate", po::value<std::string>(),
        "RUN_DIR: calibrate the forecast with a finished run's measurements instead of Neuron's "
        "published results");
    add("csv", po::bool_switch(&options.forecast.csv), "print the --sweep as CSV");
    add("png", po::value<std::string>(),
        "FILE: plot the --sweep's efficiency and cost against nodes");
    add("price-on-demand", po::value(&price_on_demand),
        "USD per node-hour on demand, for the forecast");
    add("price-reserved", po::value(&price_reserved),
        "USD per node-hour reserved, for the forecast");
  }
  add("launcher", po::value<std::string>(),
      "slurm, torchrun, mpi, batch, sagemaker or local: who started trn-run (default: detected "
      "from the environment; docs/launchers.md)");
  add("fsroot", po::value(&options.fsroot),
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
  options.fsroot_given = values.count("fsroot") > 0;
  if (values.count("sweep")) options.forecast.sweep = values["sweep"].as<std::string>();
  if (values.count("calibrate")) options.forecast.calibrate = values["calibrate"].as<std::string>();
  if (values.count("png")) options.forecast.png = values["png"].as<std::string>();
  if (options.json && options.forecast.csv) {
    throw Error(
        "--json and --csv: give one (--json prints the plan or sweep as JSON, --csv the "
        "sweep as CSV)");
  }
  if ((options.forecast.sweep || options.forecast.csv || options.forecast.png) &&
      !options.plan_only) {
    throw Error(
        "--sweep, --csv and --png forecast a plan: add --plan (trn-run PROFILE --plan "
        "--sweep 1,2,4,8,16)");
  }
  if ((options.forecast.csv || options.forecast.png) && !options.forecast.sweep) {
    throw Error("--csv and --png print a sweep: add --sweep COUNTS");
  }
  if (options.forecast.png) check_png_file(*options.forecast.png);
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

}  // namespace trn::launcher
