// trn-cache: look after a Neuron compile cache (docs/hardware.md#compile-cache).
//   trn-cache status      [--root DIR] [--list] [--json]
//   trn-cache clear-locks [--root DIR] [--older-than AGE] [--missing-ok]
//   trn-cache prune       [--root DIR] [--failed] [--older-than AGE] [--max-size SIZE]
//                         [--dry-run] [--json]
//   trn-cache pull        --from SHARED [--to LOCAL] [--compiler-version V] [--jobs N] [--json]
//                         [--layout neuronx-cc|torchneuron]
//   trn-cache push        [--from LOCAL] --to SHARED [--compiler-version V] [--jobs N] [--json]
//                         [--layout neuronx-cc|torchneuron]
//   trn-cache spread      --from SHARED [--to LOCAL] [--fanout K] [--compiler-version V]
//                         [--jobs N] [--json]   (one task per node of a Slurm step)
// Exit status: 0 done, 2 usage or cache error (one line on stderr, "trn-cache: ...").
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/slurm_hostnames.hpp"
#include "common/slurm_step_env.hpp"
#include "common/version.hpp"
#include "trn/cache/clear_locks.hpp"
#include "trn/cache/compiler_flags.hpp"
#include "trn/cache/layout.hpp"
#include "trn/cache/neff_layout.hpp"
#include "trn/cache/neff_transfer.hpp"
#include "trn/cache/prune.hpp"
#include "trn/cache/scan.hpp"
#include "trn/cache/spread.hpp"
#include "trn/cache/summary.hpp"
#include "trn/cache/transfer.hpp"
#include "trn/cache/units.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/taskenv/rendezvous_ports.hpp"

namespace po = boost::program_options;
namespace cache = trn::cache;

namespace {

// Cache paths are bytes, not necessarily UTF-8 (--root, folder names): JSON strings must be,
// so a byte that is not becomes U+FFFD in the report instead of an exception.
std::string json_text(const nlohmann::json& json) {
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

using trn::launcher::kBadInput;
using trn::launcher::kSuccess;

const char* const usage_text =
    "usage: trn-cache COMMAND [options]\n"
    "\n"
    "Looks after a Neuron compile cache: <root>/neuronxcc-<version>/MODULE_<hash>+<flags>/.\n"
    "\n"
    "  status       entries and bytes per state: done, failed, locked, empty\n"
    "               [--root DIR] [--list] [--json]\n"
    "  clear-locks  delete lock files older than --older-than (default 1h); refused while\n"
    "               neuronx-cc or neuron_parallel_compile runs on this node  [--root DIR]\n"
    "               [--missing-ok: a root that does not exist holds no lock]\n"
    "  prune        delete entries (never locked ones): --failed, --older-than AGE (unused\n"
    "               that long), --max-size SIZE (least recently used first)\n"
    "               [--root DIR] [--dry-run] [--json]\n"
    "  pull         copy complete entries from a shared cache into the local one\n"
    "               --from SHARED [--to LOCAL] [--compiler-version V] [--jobs N] [--json]\n"
    "  push         copy complete local entries to a shared cache (never overwriting one)\n"
    "               [--from LOCAL] --to SHARED [--compiler-version V] [--jobs N] [--json]\n"
    "  spread       pull on every node of a Slurm step, the shared cache read once: node 0\n"
    "               reads it and the nodes forward it down a tree of --fanout children each\n"
    "               (default 2); a node cut off reads the shared cache itself\n"
    "               (srun --ntasks-per-node=1 trn-cache spread --from SHARED ...)\n"
    "               --from SHARED [--to LOCAL] [--fanout K] [--compiler-version V] [--jobs N]\n"
    "               [--json]\n"
    "  --layout torchneuron (pull, push): TorchNeuron's NEFF cache of torch.compile(backend=\n"
    "               \"neuron\"), <root>/<k[0:2]>/<k[2:4]>/<k>.neff: the local one is\n"
    "               TORCH_NEURONX_NEFF_CACHE_DIR, else /tmp/neff_cache; the shared one is\n"
    "               SHARED/torchneuron-neff (default layout: neuronx-cc)\n"
    "\n"
    "The local cache (default for --root, pull's --to, push's --from) is the compiler's:\n"
    "--cache_dir in NEURON_CC_FLAGS, else NEURON_COMPILE_CACHE_URL, else\n"
    "/var/tmp/neuron-compile-cache. SIZE: 500M, 20G (at most 1024T); AGE: 30m, 1h, 7d (at\n"
    "most 36500d). --jobs N: entries copied at once (1-256; default the CPUs, 4 to 16).\n"
    "\n"
    "--version prints the version. Exit status: 0 done, 2 usage or cache error.\n";

// A usage error: the message is for the user as it stands.
struct UsageError {
  std::string message;
};

std::filesystem::path local_root() {
  return cache::compiler_cache_root(trn::env_value(trn::env::kNeuronCcFlags),
                                    trn::env_value(trn::env::kNeuronCompileCacheUrl));
}

// Whether the local cache was named (NEURON_CC_FLAGS --cache_dir or NEURON_COMPILE_CACHE_URL)
// rather than Neuron's default folder.
bool local_root_named() {
  const auto flags = trn::env_value(trn::env::kNeuronCcFlags);
  const auto url = trn::env_value(trn::env::kNeuronCompileCacheUrl);
  return (url && !url->empty()) || (flags && cache::cache_dir_in_flags(*flags));
}

// The folder of option `name`, else `default_root`.
std::filesystem::path root_option(const po::variables_map& options, const char* name,
                                  const std::filesystem::path& default_root) {
  return options.count(name) != 0U ? std::filesystem::path(options[name].as<std::string>())
                                   : default_root;
}

std::string entries_text(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " entry" : " entries");
}

std::string local_time(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm parts{};
  localtime_r(&seconds, &parts);
  std::ostringstream text;
  text << std::put_time(&parts, "%Y-%m-%d %H:%M");
  return text.str();
}

int run_status(const po::variables_map& options) {
  const auto root = root_option(options, "root", local_root());
  const auto entries = cache::scan(root);
  const auto summary = cache::summarize(entries);
  if (options.count("json") != 0U) {
    auto json = cache::to_json(summary, root);
    if (options.count("list") != 0U) {
      json["entries"] = nlohmann::json::array();
      for (const auto& e : entries) {
        json["entries"].push_back({{"path", e.path.string()},
                                   {"state", cache::to_string(e.state)},
                                   {"bytes", e.bytes},
                                   {"last_use", std::chrono::duration_cast<std::chrono::seconds>(
                                                    e.last_use.time_since_epoch())
                                                    .count()}});
      }
    }
    std::cout << json_text(json) << '\n';
    return kSuccess;
  }
  std::cout << "compile cache " << root.string();
  for (const auto& version : summary.compiler_versions) std::cout << "  neuronxcc-" << version;
  std::cout << '\n';
  auto row = [](const char* label, const cache::StateTotals& t) {
    std::cout << "  " << std::left << std::setw(8) << label << std::right << std::setw(7)
              << t.entries << std::left << std::setw(8) << (t.entries == 1 ? " entry" : " entries")
              << std::right << std::setw(11) << cache::format_bytes(t.bytes) << '\n';
  };
  row("done", summary.done);
  row("failed", summary.failed);
  row("locked", summary.locked);
  row("empty", summary.empty);
  row("total", summary.total());
  if (options.count("list") != 0U) {
    for (const auto& e : entries) {
      std::cout << std::left << std::setw(7) << cache::to_string(e.state) << std::right
                << std::setw(11) << cache::format_bytes(e.bytes) << "  " << local_time(e.last_use)
                << "  " << e.path.string() << '\n';
    }
  }
  return kSuccess;
}

int run_clear_locks(const po::variables_map& options) {
  cache::ClearLocksOptions clear;
  if (options.count("older-than") != 0U) {
    clear.older_than = cache::parse_age(options["older-than"].as<std::string>(), "--older-than");
  }
  if (options.count("proc-root") != 0U) clear.proc_root = options["proc-root"].as<std::string>();
  const auto root = root_option(options, "root", local_root());
  // A node that never compiled (a spare trn-run swapped in) has no cache and no stale lock.
  if (options.count("missing-ok") != 0U && !std::filesystem::exists(root)) {
    std::cout << "trn-cache: no compile cache at " << root.string() << ": no lock to clear\n";
    return kSuccess;
  }
  const auto report = cache::clear_locks(root, clear);
  for (const auto& lock : report.removed) std::cout << "removed " << lock.string() << '\n';
  std::cout << "trn-cache: removed " << report.removed.size() << " stale lock(s) in "
            << root.string() << "; kept " << report.kept_recent << " younger than "
            << options["older-than"].as<std::string>() << '\n';
  return kSuccess;
}

int run_prune(const po::variables_map& options) {
  cache::PruneOptions prune;
  prune.failed = options.count("failed") != 0U;
  prune.dry_run = options.count("dry-run") != 0U;
  if (options.count("older-than") != 0U) {
    prune.older_than = cache::parse_age(options["older-than"].as<std::string>(), "--older-than");
  }
  if (options.count("max-size") != 0U) {
    prune.max_size = cache::parse_size(options["max-size"].as<std::string>(), "--max-size");
  }
  if (!prune.failed && !prune.older_than && !prune.max_size) {
    throw UsageError{"prune needs --failed, --older-than AGE or --max-size SIZE"};
  }
  const auto root = root_option(options, "root", local_root());
  const auto report = cache::prune(root, prune);
  if (options.count("json") != 0U) {
    nlohmann::json removed = nlohmann::json::array();
    for (const auto& e : report.removed) {
      removed.push_back(
          {{"path", e.path.string()}, {"state", cache::to_string(e.state)}, {"bytes", e.bytes}});
    }
    std::cout << json_text(nlohmann::json{{"root", root.string()},
                                          {"dry_run", prune.dry_run},
                                          {"removed", removed},
                                          {"removed_bytes", report.removed_bytes},
                                          {"remaining_entries", report.remaining_entries},
                                          {"remaining_bytes", report.remaining_bytes}})
              << '\n';
    return kSuccess;
  }
  const char* verb = prune.dry_run ? "would remove " : "removed ";
  for (const auto& e : report.removed) {
    std::cout << verb << cache::to_string(e.state) << ' ' << e.path.string() << '\n';
  }
  std::cout << "trn-cache: " << verb << entries_text(report.removed.size()) << " ("
            << cache::format_bytes(report.removed_bytes) << "); "
            << entries_text(report.remaining_entries) << " ("
            << cache::format_bytes(report.remaining_bytes) << ") remain in " << root.string()
            << '\n';
  return kSuccess;
}

const char* const spread_usage = "srun --ntasks-per-node=1 trn-cache spread --from SHARED";

std::uint32_t step_number(const char* name) {
  return trn::launcher::step_number(name, "spread", spread_usage);
}

// The spread of `from` into `to` on this node of the step: its nodes in node-id order, as Slurm
// expands its own hostlist, and the step's rendezvous port.
cache::SpreadReport spread_in_step(const std::filesystem::path& from,
                                   const std::filesystem::path& to,
                                   const cache::TransferOptions& transfer,
                                   const po::variables_map& options) {
  cache::SpreadOptions spread;
  spread.hosts = trn::launcher::slurm_hostnames(
      trn::launcher::required_step_variable("SLURM_STEP_NODELIST", "spread", spread_usage),
      std::chrono::seconds(10));
  const auto tasks = step_number("SLURM_STEP_NUM_TASKS");
  if (tasks != spread.hosts.size()) {
    throw UsageError{"spread needs one task per node (" + std::to_string(tasks) + " tasks on " +
                     std::to_string(spread.hosts.size()) +
                     " nodes): srun --ntasks-per-node=1 trn-cache spread"};
  }
  spread.self = step_number("SLURM_NODEID");
  if (spread.self >= spread.hosts.size()) {
    throw UsageError{"SLURM_NODEID is beyond the step's node list"};
  }
  spread.port =
      trn::taskenv::rendezvous_ports(step_number("SLURM_JOB_ID"), step_number("SLURM_STEP_ID"))
          .master_port;
  spread.fanout = options.count("fanout") != 0U
                      ? static_cast<std::size_t>(trn::parse_whole_number_in(
                            options["fanout"].as<std::string>(), "--fanout", 1, 64))
                      : 2;
  spread.shared_root = from;
  spread.local_root = to;
  spread.transfer = transfer;
  return cache::spread(spread);
}

// --layout torchneuron: TorchNeuron's NEFF cache (docs/hardware.md#torchneuron-cache) rather
// than neuronx-cc's.
bool torchneuron_layout(const std::string& command, const po::variables_map& options) {
  if (options.count("layout") == 0U) return false;
  const auto& layout = options["layout"].as<std::string>();
  if (layout != "neuronx-cc" && layout != "torchneuron") {
    throw UsageError{"--layout " + layout + ": use neuronx-cc or torchneuron"};
  }
  if (layout == "torchneuron" && command == "spread") {
    throw UsageError{
        "spread --layout torchneuron: the spread streams the neuronx-cc layout only; pull "
        "TorchNeuron's NEFFs with srun trn-cache pull --layout torchneuron"};
  }
  if (layout == "torchneuron" && options.count("compiler-version") != 0U) {
    throw UsageError{
        "--compiler-version with --layout torchneuron: TorchNeuron's NEFF cache has no "
        "neuronxcc-<version> folders (its keys are per graph); leave --compiler-version out"};
  }
  return layout == "torchneuron";
}

int run_transfer(const std::string& command, const po::variables_map& options) {
  const bool pulling = command != "push";
  const bool neffs = torchneuron_layout(command, options);
  if (options.count(pulling ? "from" : "to") == 0U) {
    throw UsageError{command + " needs " + (pulling ? "--from SHARED" : "--to SHARED")};
  }
  for (const char* name : {"from", "to"}) {
    if (options.count(name) == 0U) continue;
    const auto& given = options[name].as<std::string>();
    if (given.find("://") != std::string::npos) {
      throw UsageError{"--" + std::string(name) + " " + given +
                       ": trn-cache copies between folders only; sync an S3 cache with `aws s3 "
                       "sync`, or give the runtime the URL itself in NEURON_COMPILE_CACHE_URL"};
    }
  }
  if (pulling && !neffs && options.count("to") == 0U && !local_root_named()) {
    // Neuron's default folder is also spank_trn's node-local tier, whose per-user folders the
    // plugin makes as root: a pull there by hand would make the tier the caller's.
    throw UsageError{
        "pull needs a destination: NEURON_COMPILE_CACHE_URL is unset (spank_trn sets it in "
        "job steps); run it in a step (srun trn-cache pull ...) or pass --to DIR"};
  }
  // The NEFF cache's local tier is the folder TorchNeuron itself picks when none is given.
  const auto local =
      neffs ? cache::neff_cache_root(trn::env_value(cache::neff_cache_dir_variable)) : local_root();
  const auto from = root_option(options, "from", local);
  const auto to = root_option(options, "to", local);
  std::error_code error;
  if (pulling && !std::filesystem::is_directory(from, error)) {
    throw UsageError{"--from " + from.string() +
                     " is not an existing folder: check the path of the shared cache"};
  }
  cache::TransferOptions transfer;
  if (options.count("compiler-version") != 0U) {
    transfer.compiler_version = options["compiler-version"].as<std::string>();
  }
  transfer.jobs = options.count("jobs") != 0U
                      ? static_cast<unsigned>(trn::parse_whole_number_in(
                            options["jobs"].as<std::string>(), "--jobs", 1, 256))
                      : cache::default_transfer_jobs();
  const auto start = std::chrono::steady_clock::now();
  std::optional<cache::SpreadReport> spread;
  if (command == "spread") spread = spread_in_step(from, to, transfer, options);
  const auto report =
      spread    ? spread->local
      : neffs   ? (pulling ? cache::pull_neffs(cache::shared_neff_root(from), to, transfer)
                           : cache::push_neffs(from, cache::shared_neff_root(to), transfer))
      : pulling ? cache::pull(from, to, transfer)
                : cache::push(from, to, transfer);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (options.count("json") != 0U) {
    auto json = spread ? cache::to_json(*spread) : cache::to_json(report);
    json["from"] = from.string();
    json["to"] = to.string();
    json["layout"] = neffs ? "torchneuron" : "neuronx-cc";
    json["seconds"] = took.count();
    json["jobs"] = transfer.jobs;
    json["bad"] = nlohmann::json::array();
    for (const auto& bad : report.bad) {
      json["bad"].push_back({{"path", bad.path.string()}, {"reason", bad.reason}});
    }
    std::cout << json_text(json) << '\n';
    return kSuccess;
  }
  for (const auto& bad : report.bad) {
    std::cout << "trn-cache: skipped " << bad.path.string() << ": " << bad.reason << '\n';
  }
  if (!report.source_exists) {
    std::cout << "trn-cache: nothing to " << command << ": " << from.string()
              << " does not exist\n";
    return kSuccess;
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", took.count());
  if (spread) {
    std::cout << "trn-cache: spread: " << spread->shared_tier_bytes
              << " bytes read from the shared tier, " << spread->received_bytes << " received from "
              << spread->parent.value_or("no parent") << ", forwarded to "
              << spread->children.size() << " node(s)"
              << (spread->fallback ? "; read the shared tier itself: " + *spread->fallback : "")
              << '\n';
  }
  std::cout << "trn-cache: " << (pulling ? "pulled " : "pushed ") << entries_text(report.copied)
            << " (" << cache::format_bytes(report.copied_bytes) << ") from " << from.string()
            << " to " << to.string() << "; skipped " << report.skipped() << " (present "
            << report.present << ", not complete " << report.not_complete << ", busy "
            << report.busy << ", vanished " << report.vanished << ", bad " << report.bad.size()
            << ") in " << seconds << " s\n";
  return kSuccess;
}

po::options_description options_for(const std::string& command) {
  po::options_description options("options");
  options.add_options()("help,h", "show this help");
  if (command == "pull" || command == "push" || command == "spread") {
    options.add_options()("from", po::value<std::string>(), "source cache root")(
        "to", po::value<std::string>(), "destination cache root")(
        "compiler-version", po::value<std::string>(), "only neuronxcc-<V>")(
        "jobs", po::value<std::string>(), "entries copied at once")("json", "JSON report")(
        "layout", po::value<std::string>(), "neuronx-cc or torchneuron");
    if (command == "spread") {
      options.add_options()("fanout", po::value<std::string>(), "children per node");
    }
    return options;
  }
  options.add_options()("root", po::value<std::string>(), "cache root");
  if (command == "status") {
    options.add_options()("list", "one line per entry")("json", "JSON report");
  } else if (command == "clear-locks") {
    options.add_options()("older-than", po::value<std::string>()->default_value("1h"), "age")(
        "proc-root", po::value<std::string>(), "process table (tests)")(
        "missing-ok", "no root: nothing to clear");
  } else if (command == "prune") {
    options.add_options()("failed", "failed entries")("older-than", po::value<std::string>(),
                                                      "age")(
        "max-size", po::value<std::string>(), "size")("dry-run", "remove nothing")("json",
                                                                                   "JSON report");
  } else {
    throw UsageError{"unknown command '" + command +
                     "'; use status, clear-locks, prune, pull, push or spread"};
  }
  return options;
}

int run(int argc, char** argv) {
  if (argc < 2)
    throw UsageError{"no command given; use status, clear-locks, prune, pull, push or spread"};
  const std::string command = argv[1];
  if (command == "-h" || command == "--help") {
    std::cout << usage_text;
    return kSuccess;
  }
  const auto description = options_for(command);
  po::variables_map options;
  try {
    const auto parsed = po::command_line_parser(argc - 1, argv + 1).options(description).run();
    // Boost leaves words that are no option aside; a word too many is a mistake, not ignored.
    if (const auto extra = po::collect_unrecognized(parsed.options, po::include_positional);
        !extra.empty()) {
      throw UsageError{command + ": unexpected argument '" + extra.front() + "'"};
    }
    po::store(parsed, options);
    po::notify(options);
  } catch (const po::error& e) {
    throw UsageError{command + ": " + e.what()};
  }
  if (options.count("help") != 0U) {
    std::cout << usage_text;
    return kSuccess;
  }
  if (command == "status") return run_status(options);
  if (command == "clear-locks") return run_clear_locks(options);
  if (command == "prune") return run_prune(options);
  return run_transfer(command, options);
}

}  // namespace

int main(int argc, char** argv) {
  if (trn::launcher::asks_for_version({argv + 1, argv + argc})) {
    trn::launcher::print_version("trn-cache");
    return kSuccess;
  }
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "trn-cache: " << e.message << " (trn-cache --help)\n";
  } catch (const trn::Error& e) {
    std::cerr << "trn-cache: " << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "trn-cache: " << e.what() << '\n';
  }
  return kBadInput;
}
