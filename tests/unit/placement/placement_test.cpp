#include "trn/placement/placement.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "trn/common/error.hpp"

using namespace trn::placement;
using trn::IdList;
using trn::test::discovered;

namespace {

PlacementRequest tasks(unsigned n) {
  PlacementRequest r;
  r.local_tasks = n;
  return r;
}

std::string error_of(const std::string& tree, const PlacementRequest& request) {
  try {
    place_step(discovered(tree), request);
  } catch (const trn::Error& e) {
    return e.what();
  }
  return "no error";
}

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' not in: " << text;
}

}  // namespace

// Each row: a task's index and the CPUs it is bound to.
void expect_cpu_lists(const StepPlacement& step,
                      const std::vector<std::pair<std::size_t, std::string>>& expected) {
  for (const auto& [task, cpu_list] : expected) {
    EXPECT_EQ(step.tasks.at(task).cpu_list, cpu_list) << "task " << task;
  }
}

TEST(Placement, Trn1_32xlarge16TasksOfTwoCores) {
  const auto step = place_step(discovered("trn1.32xlarge"), tasks(16));
  EXPECT_EQ(step.cores_per_task, 2u);
  EXPECT_EQ(step.lnc, 1u);
  ASSERT_EQ(step.tasks.size(), 16u);
  EXPECT_EQ(step.tasks[0].visible_cores, "0-1");
  EXPECT_EQ(step.tasks[0].cpu_list, "0-31,64-95");
  EXPECT_EQ(step.tasks[0].devices, (std::vector<unsigned>{0}));
  EXPECT_EQ(step.tasks[0].efa_devices, (std::vector<std::string>{"rdmap16s26"}));
  EXPECT_EQ(step.tasks[2].visible_cores, "4-5");
  EXPECT_EQ(step.tasks[2].cpu_list, "32-63,96-127");
  EXPECT_EQ(step.tasks[2].numa_nodes, (std::vector<unsigned>{1}));
  EXPECT_EQ(step.tasks[13].visible_cores, "26-27");
  EXPECT_EQ(step.tasks[13].cpu_list, "0-31,64-95");
  EXPECT_EQ(step.tasks[15].visible_cores, "30-31");
  EXPECT_TRUE(step.bind_cpus);
  EXPECT_TRUE(step.notes.empty());
}

TEST(Placement, Trn1_32xlargeFourTasksOfEightCoresSpanBothNumaNodes) {
  const auto step = place_step(discovered("trn1.32xlarge"), tasks(4));
  EXPECT_EQ(step.cores_per_task, 8u);
  const char* expected[] = {"0-7", "8-15", "16-23", "24-31"};
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(step.tasks[i].visible_cores, expected[i]);
    EXPECT_EQ(step.tasks[i].numa_nodes, (std::vector<unsigned>{0, 1}));
    EXPECT_EQ(step.tasks[i].cpu_list, "0-127");
  }
  EXPECT_EQ(step.tasks[1].devices, (std::vector<unsigned>{4, 5, 6, 7}));
  EXPECT_EQ(step.tasks[1].efa_devices, (std::vector<std::string>{"rdmap32s25", "rdmap144s25"}));
}

TEST(Placement, CoresThatDoNotSplitEvenlyNameTheFix) {
  const std::string message = error_of("trn1.32xlarge", tasks(3));
  EXPECT_TRUE(Contains(message, "32 NeuronCores cannot be split into 3 tasks"));
  EXPECT_TRUE(Contains(message, "--neuron-cores-per-task that divides 32 (1, 2, 4, 8, 16, 32)"));
  EXPECT_TRUE(Contains(error_of("trn1.2xlarge", tasks(3)), "2 NeuronCores cannot be split"));
}

TEST(Placement, ExplicitCoresPerTaskLeavesTheRestIdle) {
  auto request = tasks(2);
  request.cores_per_task = 4;
  const auto step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_EQ(step.tasks[0].visible_cores, "0-3");
  EXPECT_EQ(step.tasks[1].visible_cores, "4-7");
  request.cores_per_task = 20;
  EXPECT_TRUE(Contains(error_of("trn1.32xlarge", request),
                       "2 tasks x 20 NeuronCores need 40 but the step has 32"));
  request.cores_per_task = 0;
  EXPECT_TRUE(Contains(error_of("trn1.32xlarge", request), "at least one NeuronCore"));
}

TEST(Placement, CoresModeSplitsEachNumaNodeBetweenItsTasks) {
  auto request = tasks(16);
  request.bind = BindMode::kCores;
  auto step = place_step(discovered("trn1.32xlarge"), request);
  // Node 0 holds devices 0,1,4,5,8,9,12,13: 8 tasks share its 32 cores, 4 each, siblings kept.
  EXPECT_EQ(step.tasks[0].cpu_list, "0-3,64-67");
  EXPECT_EQ(step.tasks[1].cpu_list, "4-7,68-71");
  EXPECT_EQ(step.tasks[4].cpu_list, "8-11,72-75");
  EXPECT_EQ(step.tasks[13].cpu_list, "28-31,92-95");
  EXPECT_EQ(step.tasks[2].cpu_list, "32-35,96-99");
  EXPECT_EQ(step.tasks[15].cpu_list, "60-63,124-127");

  request.local_tasks = 4;
  step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_EQ(step.tasks[0].cpu_list, "0-7,32-39,64-71,96-103");
  EXPECT_EQ(step.tasks[3].cpu_list, "24-31,56-63,88-95,120-127");
}

TEST(Placement, NoneModeDoesNotBind) {
  auto request = tasks(16);
  request.bind = BindMode::kNone;
  const auto step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_FALSE(step.bind_cpus);
  for (const auto& task : step.tasks) EXPECT_EQ(task.cpu_list, "0-127");
  EXPECT_EQ(step.tasks[3].visible_cores, "6-7");
}

TEST(Placement, AllowedCoresRestrictTheCpus) {
  auto request = tasks(16);
  request.allowed_cores = IdList::parse("0-15,32-47", "S_STEP_ALLOC_CORES");
  auto step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_EQ(step.allowed_cpus.to_string(), "0-15,32-47,64-79,96-111");
  EXPECT_EQ(step.tasks[0].cpu_list, "0-15,64-79");
  EXPECT_EQ(step.tasks[2].cpu_list, "32-47,96-111");
  request.bind = BindMode::kCores;
  step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_EQ(step.tasks[0].cpu_list, "0-1,64-65");
  EXPECT_EQ(step.tasks[13].cpu_list, "14-15,78-79");

  request.allowed_cores = IdList::parse("60-70", "S_STEP_ALLOC_CORES");
  EXPECT_TRUE(Contains(error_of("trn1.32xlarge", request), "include core 64 but this node has 64"));
}

TEST(Placement, AllowedCpusOffTheDevicesNumaNodeFallBackWithANote) {
  auto request = tasks(16);
  request.allowed_cpus = IdList::parse("0-31,64-95", "affinity");
  const auto step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_EQ(step.tasks[2].cpu_list, "0-31,64-95");
  ASSERT_FALSE(step.notes.empty());
  EXPECT_TRUE(Contains(step.notes[0], "no CPU on NUMA node 1"));
  request.allowed_cpus = IdList::parse("200-201", "affinity");
  EXPECT_TRUE(Contains(error_of("trn1.32xlarge", request), "no CPU of this node left"));
}

TEST(Placement, GrantedDevicesLimitTheCores) {
  auto request = tasks(2);
  request.allowed_devices = IdList::parse("4-7", "SLURM_STEP_GPUS");
  auto step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_EQ(step.tasks[0].visible_cores, "8-11");
  EXPECT_EQ(step.tasks[0].cpu_list, "0-31,64-95");
  EXPECT_EQ(step.tasks[1].visible_cores, "12-15");
  EXPECT_EQ(step.tasks[1].cpu_list, "32-63,96-127");

  request.allowed_devices = IdList::parse("0,1,4,5", "SLURM_STEP_GPUS");
  step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_EQ(step.tasks[0].visible_cores, "0-3");
  EXPECT_EQ(step.tasks[1].visible_cores, "8-11");

  // Cores 2-5 hold no range of 4 starting at a multiple of 4.
  request.local_tasks = 1;
  request.allowed_devices = IdList::parse("1,2", "SLURM_STEP_GPUS");
  EXPECT_TRUE(Contains(error_of("trn1.32xlarge", request),
                       "only 0 ranges of 4 contiguous NeuronCores starting at a multiple of 4"));

  request.allowed_devices = IdList::parse("17", "SLURM_STEP_GPUS");
  EXPECT_TRUE(Contains(error_of("trn1.32xlarge", request), "include device 17"));

  request.allowed_devices = IdList();
  step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_FALSE(step.has_neuron_cores());
  EXPECT_TRUE(step.tasks[0].visible_cores.empty());
  EXPECT_TRUE(Contains(step.notes.at(0), "granted no Neuron device"));
}

TEST(Placement, Trn2LogicalCoreConfigChangesTheNumbering) {
  const auto& t = discovered("trn2.48xlarge");
  auto step = place_step(t, tasks(16));  // LNC 2 by default: 4 logical cores per device
  EXPECT_EQ(step.lnc, 2u);
  EXPECT_EQ(step.cores_per_device, 4u);
  EXPECT_EQ(step.cores_per_task, 4u);
  EXPECT_EQ(step.tasks[0].visible_cores, "0-3");
  EXPECT_EQ(step.tasks[0].cpu_list, "48-95,144-191");  // device 0 is on NUMA node 1
  EXPECT_EQ(step.tasks[4].visible_cores, "16-19");
  EXPECT_EQ(step.tasks[4].cpu_list, "0-47,96-143");

  auto request = tasks(16);
  request.lnc = 1;
  step = place_step(t, request);
  EXPECT_EQ(step.cores_per_device, 8u);
  EXPECT_EQ(step.tasks[1].visible_cores, "8-15");

  request = tasks(64);
  step = place_step(t, request);
  EXPECT_EQ(step.tasks[5].visible_cores, "5");
  EXPECT_EQ(step.tasks[5].devices, (std::vector<unsigned>{1}));

  request = tasks(1);
  request.lnc_env = "1";
  step = place_step(t, request);
  EXPECT_EQ(step.lnc, 1u);
  EXPECT_EQ(step.tasks[0].visible_cores, "0-127");
  request.lnc = 2;
  EXPECT_TRUE(Contains(error_of("trn2.48xlarge", request),
                       "--neuron-lnc=2 conflicts with NEURON_LOGICAL_NC_CONFIG=1"));
  request = tasks(1);
  request.lnc_env = "4";
  EXPECT_TRUE(Contains(error_of("trn2.48xlarge", request), "set it to 1 or 2"));
}

TEST(Placement, Trn2RecordedLogicalCoreConfigIsTheDefault) {
  trn::topology::NodeTopology t = discovered("trn2.48xlarge");
  t.neuron_ls_lnc = 1;
  EXPECT_EQ(place_step(t, tasks(1)).tasks[0].visible_cores, "0-127");
  t.neuron_ls_lnc = 2;
  EXPECT_EQ(place_step(t, tasks(1)).tasks[0].visible_cores, "0-63");
}

TEST(Placement, Trainium3NodesGroupTwoPhysicalCoresByDefaultAsTrainium2) {
  // No Trn3 node tree is published (docs/hardware.md#instances): the trn2 tree's 16 devices of 8
  // physical cores stand in, named Trainium3, for what the logical config does with them.
  trn::topology::NodeTopology t = discovered("trn2.48xlarge");
  for (auto& device : t.devices) device.device_name = "Trainium3";
  EXPECT_EQ(place_step(t, tasks(1)).tasks[0].visible_cores, "0-63");
  auto request = tasks(1);
  request.lnc = 1;
  EXPECT_EQ(place_step(t, request).tasks[0].visible_cores, "0-127");
}

TEST(Placement, LogicalCoreConfigIsTrainium2AndTrainium3Only) {
  auto request = tasks(16);
  request.lnc = 2;
  EXPECT_TRUE(Contains(error_of("trn1.32xlarge", request),
                       "--neuron-lnc=2 applies to Trainium2 and Trainium3 only and this node's "
                       "devices are Trainium1"));
  request.lnc.reset();
  request.lnc_env = "2";
  const auto step = place_step(discovered("trn1.32xlarge"), request);
  EXPECT_EQ(step.lnc, 1u);
  EXPECT_EQ(step.tasks[1].visible_cores, "2-3");
}

TEST(Placement, Inf2FourNumaNodes) {
  const auto& t = discovered("inf2.48xlarge");
  auto step = place_step(t, tasks(12));
  EXPECT_EQ(step.tasks[8].visible_cores, "16-17");
  expect_cpu_lists(
      step, {{8, "0-23,96-119"}, {0, "48-71,144-167"}, {1, "72-95,168-191"}, {6, "24-47,120-143"}});
  EXPECT_TRUE(step.tasks[0].efa_devices.empty());

  step = place_step(t, tasks(6));
  EXPECT_EQ(step.tasks[0].visible_cores, "0-3");
  EXPECT_EQ(step.tasks[0].numa_nodes, (std::vector<unsigned>{2, 3}));
  EXPECT_EQ(step.tasks[0].cpu_list, "48-95,144-191");

  auto request = tasks(12);
  request.bind = BindMode::kCores;
  step = place_step(t, request);
  expect_cpu_lists(step, {{8, "0-7,96-103"}, {9, "8-15,104-111"}, {10, "16-23,112-119"}});
}

TEST(Placement, Trn1_2xlarge) {
  const auto& t = discovered("trn1.2xlarge");
  auto step = place_step(t, tasks(1));
  EXPECT_EQ(step.tasks[0].visible_cores, "0-1");
  EXPECT_EQ(step.tasks[0].cpu_list, "0-7");
  auto request = tasks(2);
  request.bind = BindMode::kCores;
  step = place_step(t, request);
  EXPECT_EQ(step.tasks[0].visible_cores, "0");
  EXPECT_EQ(step.tasks[1].visible_cores, "1");
  expect_cpu_lists(step, {{0, "0-1,4-5"}, {1, "2-3,6-7"}});
}

TEST(Placement, CpuOnlyNodeGetsCpuPlacementOnly) {
  const auto& t = discovered("cpu-only");
  auto request = tasks(4);
  request.cores_per_task = 8;
  auto step = place_step(t, request);
  EXPECT_FALSE(step.has_neuron_cores());
  for (const auto& task : step.tasks) {
    EXPECT_TRUE(task.visible_cores.empty());
    EXPECT_EQ(task.cpu_list, "0-7");
  }
  ASSERT_EQ(step.notes.size(), 2u);
  EXPECT_TRUE(Contains(step.notes[0], "no Neuron devices on this node"));
  EXPECT_TRUE(Contains(step.notes[1], "--neuron-cores-per-task ignored"));

  request.bind = BindMode::kCores;
  step = place_step(t, request);
  EXPECT_EQ(step.tasks[0].cpu_list, "0,4");
  EXPECT_EQ(step.tasks[3].cpu_list, "3,7");

  request.local_tasks = 6;  // more tasks than cores: they share
  step = place_step(t, request);
  EXPECT_EQ(step.tasks[4].cpu_list, "0,4");
  EXPECT_TRUE(Contains(step.notes.back(), "6 tasks share the 4 allowed cores"));
}

TEST(Placement, ZeroTasksIsAnError) {
  EXPECT_TRUE(Contains(error_of("cpu-only", tasks(0)), "0 tasks"));
}

TEST(BindMode, ParsesTheThreeModes) {
  EXPECT_EQ(parse_bind_mode("numa", "--neuron-bind"), BindMode::kNuma);
  EXPECT_EQ(parse_bind_mode("cores", "--neuron-bind"), BindMode::kCores);
  EXPECT_EQ(parse_bind_mode("none", "--neuron-bind"), BindMode::kNone);
  EXPECT_EQ(to_string(BindMode::kCores), "cores");
  try {
    parse_bind_mode("socket", "--neuron-bind");
    FAIL();
  } catch (const trn::Error& e) {
    EXPECT_STREQ(e.what(),
                 "--neuron-bind=socket is not a CPU binding mode: use numa, cores or none");
  }
}
