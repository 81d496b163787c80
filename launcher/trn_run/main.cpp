// trn-launcher: the C++ side of trn-run and trn-compile (installed shell scripts exec it, so
// that `sbatch trn-run PROFILE` can send a script and every node runs the same binary).
#include <iostream>
#include <string>
#include <vector>

#include "batch_host_watch.hpp"
#include "common/exit_codes.hpp"
#include "common/version.hpp"
#include "compile_phase.hpp"
#include "neuron_worker.hpp"
#include "node_facts.hpp"
#include "node_workers.hpp"
#include "run_command.hpp"
#include "slurm_task.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"

namespace {

int node_facts_command(const std::vector<std::string>& args) {
  // --fsroot, else the tree spank_trn set this step up from (TRN_FSROOT), else the node's own.
  std::string fsroot = trn::env_value(trn::env::kTrnFsroot).value_or("/");
  if (args.size() == 2 && args[0] == "--fsroot") fsroot = args[1];
  std::cout << trn::launcher::to_json(trn::launcher::local_node_facts(fsroot)).dump() << '\n';
  return trn::launcher::kSuccess;
}

// compile-agent -- TASK COMMAND...: what each node runs in trn-run's compile step.
int compile_agent_command(const std::vector<std::string>& args) {
  if (args.size() < 2 || args[0] != "--") {
    std::cerr << "usage: trn-launcher compile-agent -- COMMAND...\n";
    return trn::launcher::kBadInput;
  }
  return trn::launcher::compile_agent({args.begin() + 1, args.end()}, {});
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const std::string command = args.empty() ? "" : args.front();
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  const std::string tool = command == "compile" ? "trn-compile" : "trn-run";
  if ((command == "run" || command == "compile") && trn::launcher::asks_for_version(rest)) {
    trn::launcher::print_version(tool);
    return trn::launcher::kSuccess;
  }
  try {
    if (command == "run") return trn::launcher::run_command(rest, trn::launcher::Mode::kRun);
    if (command == "compile")
      return trn::launcher::run_command(rest, trn::launcher::Mode::kCompile);
    if (command == "compile-agent") return compile_agent_command(rest);
    if (command == "node-facts") return node_facts_command(rest);
    if (command == "node-workers") return trn::launcher::node_workers_command(rest);
    if (command == "slurm-task") return trn::launcher::slurm_task_command(rest);
    if (command == "neuron-worker") return trn::launcher::neuron_worker_command(rest);
    if (command == "watch-batch-host") return trn::launcher::watch_batch_host_command(rest);
    std::cerr << "usage: trn-launcher run|compile|node-facts|node-workers|slurm-task|neuron-worker|"
                 "watch-batch-host ... (use the trn-run and trn-compile commands)\n";
    return trn::launcher::kBadInput;
  } catch (const trn::Error& error) {
    std::cerr << tool << ": " << error.what() << '\n';
    return trn::launcher::kBadInput;
  } catch (const std::exception& error) {
    std::cerr << tool << ": " << error.what() << '\n';
    return trn::launcher::kBadInput;
  }
}
