// trn-cluster: ParallelCluster helpers for trn-slurm.
//   trn-cluster check [--strict] FILE...   lint cluster configs offline
// Exit status: 0 clean (warnings allowed), 1 a config has errors, 2 usage or I/O error.
#include <boost/program_options.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/version.hpp"
#include "trn/common/error.hpp"
#include "trn/pcluster/config_check.hpp"

namespace po = boost::program_options;

namespace {

using trn::launcher::kBadInput;
using trn::launcher::kConfigHasErrors;
using trn::launcher::kSuccess;

const char* const usage_text =
    "usage: trn-cluster check [--strict] FILE...\n"
    "\n"
    "Lints AWS ParallelCluster 3 cluster configurations offline: schema keys and types,\n"
    "duplicate keys, ParallelCluster's validators and the Trainium rules of trn-slurm.\n"
    "Problems are printed as FILE:LINE:COLUMN: error: MESSAGE. FILE is a regular file of at\n"
    "most 1 MiB; YAML merge keys (<<: *anchor) are merged first.\n"
    "\n"
    "  --strict   treat REPLACE_ME placeholders and mistyped compute instance types (not\n"
    "             FAMILY.SIZE, or a trn*/inf* type trn-slurm does not know) as errors\n"
    "             (use before pcluster create-cluster)\n"
    "  -h, --help show this help\n"
    "  --version  print the version\n"
    "\n"
    "Exit status: 0 clean (warnings allowed), 1 errors found, 2 usage or I/O error.\n";

int usage_error(const std::string& message) {
  std::cerr << "trn-cluster: " << message << "\n\n" << usage_text;
  return kBadInput;
}

int run_check(const std::vector<std::string>& files, bool strict) {
  trn::pcluster::CheckOptions options;
  options.placeholders_are_errors = strict;
  options.unknown_instance_types_are_errors = strict;
  int status = kSuccess;
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t unread = 0;
  for (const auto& file : files) {
    try {
      for (const auto& diagnostic : trn::pcluster::check_cluster_config_file(file, options)) {
        std::cout << diagnostic.to_string() << '\n';
        (diagnostic.severity == trn::pcluster::Severity::kError ? errors : warnings)++;
        if (diagnostic.severity == trn::pcluster::Severity::kError && status == kSuccess) {
          status = kConfigHasErrors;
        }
      }
    } catch (const trn::Error& e) {
      std::cerr << "trn-cluster: " << e.what() << '\n';
      status = kBadInput;
      ++unread;
    }
  }
  std::cerr << "trn-cluster: checked " << files.size() << " file(s): " << errors << " error(s), "
            << warnings << " warning(s)"
            << (unread > 0 ? "; " + std::to_string(unread) + " file(s) could not be read" : "")
            << '\n';
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (trn::launcher::asks_for_version({argv + 1, argv + argc})) {
    trn::launcher::print_version("trn-cluster");
    return kSuccess;
  }
  po::options_description visible("options");
  visible.add_options()("help,h", "show this help")(
      "strict", "placeholders and mistyped instance types are errors");
  po::options_description all;
  all.add(visible).add_options()("command", po::value<std::string>())(
      "files", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("command", 1).add("files", -1);

  po::variables_map options;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(),
              options);
    po::notify(options);
  } catch (const po::error& e) {
    return usage_error(e.what());
  }
  if (options.count("help") != 0U) {
    std::cout << usage_text;
    return kSuccess;
  }
  if (options.count("command") == 0U) return usage_error("no command given");
  const auto command = options["command"].as<std::string>();
  if (command != "check") return usage_error("unknown command '" + command + "'");
  if (options.count("files") == 0U) return usage_error("check needs at least one FILE");
  return run_check(options["files"].as<std::vector<std::string>>(), options.count("strict") != 0U);
}
