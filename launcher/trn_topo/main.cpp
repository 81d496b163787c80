// trn-topo: shows what trn-slurm sees on a node and what each task of a step would get.
// Errors are one line "trn-topo: ..." and exit status 2.

#include <boost/program_options/errors.hpp>
#include <iostream>

#include "common/exit_codes.hpp"
#include "common/version.hpp"
#include "options.hpp"
#include "report.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/topology/node_topology_source.hpp"

namespace {

using namespace trn;

topo_tool::Report build_report(topo_tool::Options& options) {
  topo_tool::Report report;
  const auto& source = options.source;
  auto found = topology::load_node_topology(source);
  report.topology = std::move(found.topology);
  if (found.from_cache) {
    report.topology_note = "read from " + source.cache_file->string();
  } else {
    const auto& why = found.why_discovered;
    report.topology_note =
        "discovered from " + source.fsroot.string() + (why.empty() ? "" : " (" + why + ")");
  }
  report.placement = placement::place_step(report.topology, options.request);
  report.step_environment = taskenv::prepare_step_environment(report.topology, report.placement,
                                                              options.facts, options.env);
  const taskenv::EnvLookup from_process = env_value;
  for (unsigned i = 0; i < options.request.local_tasks; ++i) {
    const taskenv::TaskIds ids{i, options.facts.node_id * options.request.local_tasks + i};
    report.tasks.push_back(taskenv::task_environment(report.step_environment, ids, from_process));
  }
  if (options.fabric) report.fabric = launcher::query_fabric_providers();
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  if (trn::launcher::asks_for_version({argv + 1, argv + argc})) {
    trn::launcher::print_version("trn-topo");
    return trn::launcher::kSuccess;
  }
  try {
    auto options = topo_tool::parse_options(argc, argv);
    if (options.help) {
      std::cout << options.help_text;
      return trn::launcher::kSuccess;
    }
    const auto report = build_report(options);
    if (options.json) {
      topo_tool::print_json(std::cout, report);
    } else {
      topo_tool::print_text(std::cout, report);
    }
    return trn::launcher::kSuccess;
  } catch (const trn::Error& e) {
    std::cerr << "trn-topo: " << e.what() << "\n";
  } catch (const boost::program_options::error& e) {
    std::cerr << "trn-topo: " << e.what() << ": see trn-topo --help\n";
  } catch (const std::exception& e) {
    std::cerr << "trn-topo: unexpected failure: " << e.what() << "\n";
  }
  return trn::launcher::kBadInput;
}
