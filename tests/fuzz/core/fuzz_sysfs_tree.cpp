// What trn-slurm reads below a filesystem root (sysfs, /proc, /dev/kmsg, DMI, and the state it
// keeps there: trn-health's baseline and the plugin's topology cache). Each input replaces one
// file of a recorded node tree with its bytes, runs every reader over the tree and puts the file
// back: a driver of another version, a damaged tree or a hostile file must give a trn::Error or
// a warning, never a crash.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "fuzz_tree.hpp"
#include "trn/cache/compiler_processes.hpp"
#include "trn/common/error.hpp"
#include "trn/health/baseline.hpp"
#include "trn/health/check_result.hpp"
#include "trn/health/node_checks.hpp"
#include "trn/topology/discover.hpp"
#include "trn/topology/kernel_release.hpp"
#include "trn/topology/node_identity.hpp"
#include "trn/topology/topology_cache.hpp"

#ifndef TRN_FIXTURES_DIR
#error "TRN_FIXTURES_DIR: tests/fuzz/CMakeLists.txt names the recorded trees"
#endif

namespace {

namespace fs = std::filesystem;

// trn1.2xlarge first: the smallest tree, so most inputs run fast; the others bring EFA, 16
// devices and trn2's logical cores.
constexpr std::array<const char*, 3> kTrees = {"trn1.2xlarge", "trn1.32xlarge", "trn2.48xlarge"};

// Where the harness keeps trn-health's baseline and the plugin's topology cache in each tree.
constexpr const char* kStateDir = "var/lib/trn-health";
constexpr const char* kTopologyCache = "run/trn-slurm/topology.json";
// A process running neuron_parallel_compile, for the compiler process scan.
constexpr const char* kCompilerProcess = "proc/4242";

struct Tree {
  fs::path root;
  std::vector<fs::path> files;  // the replaceable ones, sorted: an input's index names the same
                                // file in every run
};

// Every CPU, device and core repeats the first's files: the first two of each are enough.
bool worth_fuzzing(const std::string& relative) {
  static const std::regex repeated(
      "sys/devices/system/cpu/cpu([2-9]|[1-9][0-9]+)/.*|"
      ".*/neuron_device/neuron([2-9]|[1-9][0-9]+)/.*|.*/neuron_core[1-9][0-9]*/.*");
  return !std::regex_match(relative, repeated);
}

Tree copy_tree(const fs::path& into, const char* name) {
  Tree tree{into / name, {}};
  fs::copy(fs::path(TRN_FIXTURES_DIR) / name, tree.root,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  trn::fuzz::write_file(tree.root / kCompilerProcess / "cmdline",
                        std::string("python3\0/usr/bin/neuron_parallel_compile\0", 41));
  trn::fuzz::write_file(tree.root / kCompilerProcess / "comm", "python3\n");
  trn::topology::DiscoveryOptions options;
  options.fsroot = tree.root;
  const auto topology = trn::topology::discover(options);
  trn::topology::save_topology_cache(topology, tree.root / kTopologyCache);
  trn::health::NodeCheckOptions check;
  check.fsroot = tree.root;
  trn::health::write_baseline(tree.root / kStateDir, trn::health::check_node(check, "n").observed);
  for (const auto& item : fs::recursive_directory_iterator(tree.root)) {
    if (!item.is_regular_file() || item.is_symlink()) continue;
    if (worth_fuzzing(fs::relative(item.path(), tree.root).string()))
      tree.files.push_back(item.path());
  }
  std::sort(tree.files.begin(), tree.files.end());
  return tree;
}

std::vector<Tree>& trees() {
  static std::vector<Tree> copies;
  return copies;
}

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <typename Read>
void attempt(Read read) {
  try {
    read();
  } catch (const trn::Error&) {
  }
}

void read_everything(const fs::path& root) {
  attempt([&] {
    trn::topology::DiscoveryOptions options;
    options.fsroot = root;
    trn::topology::discover(options);
  });
  trn::topology::load_cached_topology(root / kTopologyCache, root);
  const auto boot_id = trn::topology::read_boot_id(root);
  trn::topology::read_instance_type(root);
  attempt([&] {
    trn::topology::parse_kernel_release(contents(root / "proc/sys/kernel/osrelease"), "osrelease");
  });
  attempt([&] {
    trn::health::NodeCheckOptions options;
    options.fsroot = root;
    options.baseline = trn::health::read_baseline(root / kStateDir, boot_id);
    const auto run = trn::health::check_node(options, "n");
    // trn-health prints the result as text, or as JSON with --json.
    trn::health::render_text(run.health);
    trn::health::to_json(run.health).dump();
  });
  attempt([&] { trn::cache::find_compiler_processes(root / "proc"); });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  static const trn::test::TempDir scratch;
  for (const char* name : kTrees) trees().push_back(copy_tree(scratch.path(), name));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const auto& tree = trees()[input.ConsumeIntegralInRange<std::size_t>(0, trees().size() - 1)];
  const auto& file =
      tree.files[input.ConsumeIntegralInRange<std::size_t>(0, tree.files.size() - 1)];
  const auto original = contents(file);
  trn::fuzz::write_file(file, input.ConsumeRemainingBytesAsString());
  read_everything(tree.root);
  trn::fuzz::write_file(file, original);
  return 0;
}
