#include "trn/health/node_checks.hpp"

#include <gtest/gtest.h>

#include "contains_all.hpp"
#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace trn::health {
namespace {

NodeCheckOptions on(const std::string& tree) {
  NodeCheckOptions options;
  options.fsroot = test::fixture(tree);
  return options;
}

CheckResult result_of(const NodeHealth& health, const std::string& check) {
  for (const auto& result : health.checks) {
    if (result.check == check) return result;
  }
  throw std::runtime_error("no check " + check);
}

// Every clean recorded instance passes: no false drains.
TEST(NodeChecks, EveryCleanFixtureIsHealthy) {
  for (const auto* tree : {"trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge",
                           "inf2.48xlarge", "cpu-only"}) {
    const auto run = check_node(on(tree), "n1");
    EXPECT_TRUE(run.health.healthy()) << tree << ":\n" << render_text(run.health);
    for (const auto& check : run.health.checks) {
      EXPECT_NE(check.status, CheckStatus::kWarning)
          << tree << ": " << check.check << ": " << check.evidence;
    }
  }
}

TEST(NodeChecks, ExpectsTheDocumentedCounts) {
  EXPECT_EQ(result_of(check_node(on("trn1.32xlarge"), "n").health, "neuron-devices").evidence,
            "16 devices x 2 NeuronCores (trn1.32xlarge)");
  EXPECT_EQ(result_of(check_node(on("trn2.48xlarge"), "n").health, "efa").evidence,
            "16 EFA devices; libfabric not asked");
  EXPECT_EQ(result_of(check_node(on("trn1.32xlarge"), "n").health, "efa").evidence,
            "8 EFA devices; libfabric not asked");
  EXPECT_EQ(result_of(check_node(on("inf2.48xlarge"), "n").health, "efa").status,
            CheckStatus::kSkipped);
  EXPECT_EQ(result_of(check_node(on("trn2.48xlarge"), "n").health, "efa-errors").evidence,
            "16 EFA devices: no_completion_cmds at or below the last clean check");
  EXPECT_EQ(result_of(check_node(on("inf2.48xlarge"), "n").health, "efa-errors").status,
            CheckStatus::kSkipped);
}

// The EFA counter, like the Neuron ones, counts from driver load: a value the operator accepted
// (trn-health --accept, or the last clean check) is healthy, only a rise fails.
TEST(NodeChecks, EfaCountersAtTheLastCleanCheckAreHealthy) {
  auto options = on("faulty/trn2-efa-no-completion");
  const auto first = check_node(options, "n");
  ASSERT_FALSE(first.health.healthy());
  EXPECT_EQ(first.observed.counters.at("efa/rdmap202s0/hw_counters/no_completion_cmds"), 2);
  options.baseline = first.observed;
  EXPECT_TRUE(check_node(options, "n").health.healthy());
  options.baseline.counters["efa/rdmap202s0/hw_counters/no_completion_cmds"] = 1;
  EXPECT_EQ(result_of(check_node(options, "n").health, "efa-errors").evidence,
            "rdmap202s0 (0000:ca:00.0, serves neuron3) no_completion_cmds 2 (1 at the last clean "
            "check)");
}

// Drivers before the split into device and port statistics keep the counter under the port; a
// counter that is no number is a warning, never a drain. (Only the EFA part of the trn2 tree is
// copied: the whole tree's CPU files take seconds.)
TEST(NodeChecks, EfaCountersOfOlderDriversAndGarbage) {
  test::TempDir root;
  const auto copy = [&](const std::filesystem::path& part) {
    std::filesystem::create_directories((root.path() / part).parent_path());
    std::filesystem::copy(
        test::fixture("trn2.48xlarge") / part, root.path() / part,
        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  };
  copy("sys/class/dmi");
  copy("sys/class/infiniband");
  for (const auto& entry :
       std::filesystem::directory_iterator(test::fixture("trn2.48xlarge") / "sys/devices")) {
    if (entry.path().filename().string().starts_with("pci"))
      copy(std::filesystem::path("sys/devices") / entry.path().filename());
  }
  NodeCheckOptions options;
  options.fsroot = root.path();
  const auto expected = expected_for(root.path());
  std::map<std::string, std::int64_t> counters;
  const auto device = "sys/devices/pci0000:57/0000:57:00.0/infiniband/rdmap87s0";
  std::filesystem::remove_all(root.path() / device / "hw_counters");
  EXPECT_EQ(check_efa_errors(options, expected, counters).status, CheckStatus::kOk);
  root.write(std::string(device) + "/ports/1/hw_counters/no_completion_cmds", "1\n");
  const auto old_driver = check_efa_errors(options, expected, counters);
  EXPECT_EQ(old_driver.status, CheckStatus::kFailed);
  EXPECT_EQ(old_driver.evidence,
            "rdmap87s0 (0000:57:00.0, serves neuron5) no_completion_cmds 1 (0 at the last clean "
            "check)");
  EXPECT_EQ(counters.at("efa/rdmap87s0/ports/1/hw_counters/no_completion_cmds"), 1);
  root.write(std::string(device) + "/ports/1/hw_counters/no_completion_cmds", "N/A\n");
  const auto garbage = check_efa_errors(options, expected, counters);
  EXPECT_EQ(garbage.status, CheckStatus::kWarning);
  test::expect_contains_all(garbage.evidence,
                            {"rdmap87s0/ports/1/hw_counters/no_completion_cmds", "holds no count"});
}

struct Fault {
  const char* tree;
  const char* check;
  const char* evidence;
};

// One fault per faulty tree (tests/fixtures/generate.py), each caught with its evidence.
TEST(NodeChecks, EachFaultyFixtureFailsItsCheckWithEvidence) {
  const Fault faults[] = {
      {"faulty/ecc-uncorrected", "error-counters",
       "neuron0 mem_ecc_uncorrected 2 (0 at the last clean check)"},
      {"faulty/core-hw-error", "error-counters",
       "neuron0 neuron_core1 hw_error 1 (0 at the last clean check)"},
      {"faulty/missing-device", "neuron-devices",
       "15 of 16 Neuron devices: neuron5 missing (trn1.32xlarge)"},
      {"faulty/missing-efa", "efa",
       "7 of 8 EFA devices (trn1.32xlarge): 0000:10:1a.0 (serves neuron0, neuron1) missing"},
      {"faulty/hardware-error-line", "kernel-log",
       "NEURON_HW_ERR=HBM_UNCORRECTABLE_ERROR nd-id=0 nc-id=1 (permanent: replace the instance)"},
      // trn2 (Neuron Observer's signals, from their documented counters): an uncorrectable HBM
      // error, and an EFA device that stopped completing its driver's admin commands.
      {"faulty/trn2-hbm-uncorrected", "error-counters",
       "neuron9 mem_ecc_uncorrected 1 (0 at the last clean check)"},
      {"faulty/trn2-efa-no-completion", "efa-errors",
       "rdmap202s0 (0000:ca:00.0, serves neuron3) no_completion_cmds 2 (0 at the last clean "
       "check)"},
  };
  for (const auto& fault : faults) {
    const auto run = check_node(on(fault.tree), "n2");
    ASSERT_FALSE(run.health.healthy()) << fault.tree;
    const auto* failure = run.health.first_failure();
    EXPECT_EQ(failure->check, fault.check) << fault.tree;
    EXPECT_EQ(failure->evidence, fault.evidence) << fault.tree;
    for (const auto& check : run.health.checks) {
      if (check.check != fault.check) {
        EXPECT_NE(check.status, CheckStatus::kFailed) << fault.tree;
      }
    }
  }
}

TEST(NodeChecks, CountersAtTheLastCleanCheckAreHealthy) {
  auto options = on("faulty/ecc-uncorrected");
  const auto first = check_node(options, "n");
  ASSERT_FALSE(first.health.healthy());
  // The operator accepted the node with the counter at 2 (trn-health --accept): only a rise fails.
  options.baseline = first.observed;
  EXPECT_TRUE(check_node(options, "n").health.healthy());
  options.baseline.counters["neuron0/stats/hardware/mem_ecc_uncorrected"] = 1;
  EXPECT_EQ(result_of(check_node(options, "n").health, "error-counters").evidence,
            "neuron0 mem_ecc_uncorrected 2 (1 at the last clean check)");
}

TEST(NodeChecks, KernelLogLinesUpToTheBaselineAreNotCountedAgain) {
  auto options = on("faulty/hardware-error-line");
  const auto first = check_node(options, "n");
  EXPECT_EQ(first.observed.kernel_log_sequence, 4u);
  options.baseline.kernel_log_sequence = first.observed.kernel_log_sequence;
  EXPECT_TRUE(check_node(options, "n").health.healthy());
}

TEST(NodeChecks, GarbageAndUnreadableCountersWarnAndNeverFail) {
  const auto garbage = check_node(on("faulty/garbage-counter"), "n");
  EXPECT_TRUE(garbage.health.healthy());
  const auto counters = result_of(garbage.health, "error-counters");
  EXPECT_EQ(counters.status, CheckStatus::kWarning);
  test::expect_contains_all(counters.evidence, {"sram_ecc_uncorrected/total", "holds no count"});

  test::TempDir root;
  std::filesystem::copy(
      test::fixture("trn1.2xlarge"), root.path(),
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  const auto total = root.path() /
                     "sys/devices/virtual/neuron_device/neuron0/stats/hardware/"
                     "mem_ecc_uncorrected/total";
  std::filesystem::remove(total);
  std::filesystem::create_directory(total);  // unreadable as a file, even for root
  NodeCheckOptions options;
  options.fsroot = root.path();
  const auto run = check_node(options, "n");
  EXPECT_TRUE(run.health.healthy());
  test::expect_contains_all(result_of(run.health, "error-counters").evidence,
                            {"mem_ecc_uncorrected/total", "unreadable"});
}

TEST(NodeChecks, AMissingDriverFailsAndAnUndocumentedTypeWarns) {
  test::TempDir root;
  root.write("sys/class/dmi/id/product_name", "trn1.32xlarge\n");
  NodeCheckOptions options;
  options.fsroot = root.path();
  const auto devices = result_of(check_node(options, "n").health, "neuron-devices");
  EXPECT_EQ(devices.status, CheckStatus::kFailed);
  test::expect_contains_all(devices.evidence, {"Neuron driver not loaded", "has 16 devices"});

  std::filesystem::copy(test::fixture("trn1.2xlarge/sys/devices"), root.path() / "sys/devices",
                        std::filesystem::copy_options::recursive);
  root.write("sys/class/dmi/id/product_name", "trn9.mega\n");
  const auto unknown = result_of(check_node(options, "n").health, "neuron-devices");
  EXPECT_EQ(unknown.status, CheckStatus::kWarning);
  EXPECT_THAT(unknown.evidence, testing::HasSubstr("'trn9.mega' has no documented count"));
}

TEST(NodeChecks, NeuronLsMustAgreeWithTheInstanceType) {
  auto options = on("trn2.48xlarge");
  options.neuron_ls =
      topology::read_neuron_ls_file(test::fixture("trn2.48xlarge/neuron-ls-lnc2.json"));
  EXPECT_THAT(result_of(check_node(options, "n").health, "neuron-devices").evidence,
              testing::HasSubstr("neuron-ls-lnc2.json agrees"));
  options.neuron_ls = topology::NeuronLsOutput{
      R"([{"neuron_device": 0, "bdf": "cc:00.0", "numa_node": 1}])", "neuron-ls -j"};
  const auto devices = result_of(check_node(options, "n").health, "neuron-devices");
  EXPECT_EQ(devices.status, CheckStatus::kFailed);
  EXPECT_EQ(devices.evidence, "neuron-ls -j lists 1 devices, trn2.48xlarge has 16");
}

// neuron-ls's nc_count is logical NeuronCores: times logical_neuroncore_config, a device's
// physical ones (trn2: 8).
TEST(NodeChecks, NeuronLsMustListEachDevicesNeuronCores) {
  auto options = on("trn2.48xlarge");
  const auto with_cores = [](const char* recorded, unsigned device, unsigned cores) {
    auto json = nlohmann::json::parse(topology::read_neuron_ls_file(test::fixture(recorded)).json);
    json.at(device)["nc_count"] = cores;
    return topology::NeuronLsOutput{json.dump(), "neuron-ls -j"};
  };
  options.neuron_ls = with_cores("trn2.48xlarge/neuron-ls-lnc1.json", 5, 7);
  const auto lnc1 = result_of(check_node(options, "n").health, "neuron-devices");
  EXPECT_EQ(lnc1.status, CheckStatus::kFailed);
  EXPECT_EQ(lnc1.evidence, "neuron-ls -j lists neuron5 with 7 NeuronCores, a Trainium2 has 8");
  options.neuron_ls = with_cores("trn2.48xlarge/neuron-ls-lnc2.json", 3, 3);
  const auto lnc2 = result_of(check_node(options, "n").health, "neuron-devices");
  EXPECT_EQ(lnc2.status, CheckStatus::kFailed);
  EXPECT_EQ(lnc2.evidence,
            "neuron-ls -j lists neuron3 with 3 NeuronCores at logical config 2, a Trainium2 has 8");
  options.neuron_ls = with_cores("trn2.48xlarge/neuron-ls-lnc1.json", 5, 8);  // as documented
  EXPECT_EQ(result_of(check_node(options, "n").health, "neuron-devices").status, CheckStatus::kOk);
}

TEST(NodeChecks, EfaNeedsLibfabricsEfaProviderWhereEfaIsExpected) {
  auto options = on("trn1n.32xlarge");
  options.fabric = [] { return FabricProviders{{"tcp", "udp", "shm"}, ""}; };
  const auto missing = result_of(check_node(options, "n").health, "efa");
  EXPECT_EQ(missing.status, CheckStatus::kFailed);
  test::expect_contains_all(missing.evidence, {"no efa provider", "providers: tcp, udp, shm"});
  options.fabric = [] { return FabricProviders{{"efa", "tcp"}, ""}; };
  EXPECT_EQ(result_of(check_node(options, "n").health, "efa").status, CheckStatus::kOk);
  // No EFA expected: libfabric is not even asked.
  auto inf2 = on("inf2.48xlarge");
  bool asked = false;
  inf2.fabric = [&asked] {
    asked = true;
    return FabricProviders{{}, "No data available"};
  };
  EXPECT_EQ(result_of(check_node(inf2, "n").health, "efa").status, CheckStatus::kSkipped);
  EXPECT_FALSE(asked);
}

TEST(NodeChecks, CacheTierMustBeWritableWithFreeSpace) {
  test::TempDir dir;
  auto options = on("cpu-only");
  options.cache_dir = dir.path();
  options.min_free_bytes = 1;
  const auto ok = result_of(check_node(options, "n").health, "cache-tier");
  EXPECT_EQ(ok.status, CheckStatus::kOk) << ok.evidence;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));  // the probe file is gone
  options.min_free_bytes = std::uint64_t{1} << 60;
  const auto full = result_of(check_node(options, "n").health, "cache-tier");
  EXPECT_EQ(full.status, CheckStatus::kFailed);
  test::expect_contains_all(full.evidence, {dir.path().string(), "free, below"});
  // A job's own cache (NEURON_COMPILE_CACHE_URL, maybe the user's --neuron-cache) that is full
  // is reported, never a reason to drain the node.
  options.cache_dir_is_node_tier = false;
  const auto users = result_of(check_node(options, "n").health, "cache-tier");
  EXPECT_EQ(users.status, CheckStatus::kWarning);
  EXPECT_THAT(users.evidence, testing::HasSubstr("not a node fault"));
  options.cache_dir_is_node_tier = true;
  options.cache_dir = dir.write("a-file", "x");
  EXPECT_EQ(result_of(check_node(options, "n").health, "cache-tier").status, CheckStatus::kWarning);
}

}  // namespace
}  // namespace trn::health
