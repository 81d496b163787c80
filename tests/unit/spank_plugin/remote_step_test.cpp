// slurmstepd (remote context): what each task's environment holds after the plugin ran, per
// fixture, restriction and option.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plugin_test.hpp"
#include "trn/taskenv/rendezvous_ports.hpp"

namespace trn::test {
namespace {

using ::testing::HasSubstr;

class RemoteStep : public PluginTest {};

TEST_F(RemoteStep, Trn1FourTasksOfEightCoresOnTheSecondNode) {
  set_up_step(2, 1, 4);
  const Env before = fake_spank::state().env;
  const StepRun run =
      run_step(plugin(), args_for("trn1.32xlarge"), {{"neuron-cores-per-task", "8"}});
  ASSERT_EQ(run.init, 0);
  ASSERT_EQ(run.init_post_opt, 0);
  const auto ports = taskenv::rendezvous_ports(4242, 0);
  const char* cores[] = {"0-7", "8-15", "16-23", "24-31"};
  for (unsigned i = 0; i < 4; ++i) {
    ASSERT_EQ(run.task_init[i], 0) << "task " << i;
    const Env env = added(before, run.task_env[i]);
    EXPECT_EQ(value_of(env, "NEURON_RT_VISIBLE_CORES"), cores[i]);
    EXPECT_EQ(value_of(env, "RANK"), std::to_string(4 + i));
    EXPECT_EQ(value_of(env, "LOCAL_RANK"), std::to_string(i));
    EXPECT_EQ(value_of(env, "WORLD_SIZE"), "8");
    EXPECT_EQ(value_of(env, "LOCAL_WORLD_SIZE"), "4");
    EXPECT_EQ(value_of(env, "NODE_RANK"), "1");
    EXPECT_EQ(value_of(env, "MASTER_ADDR"), "localhost");
    EXPECT_EQ(value_of(env, "MASTER_PORT"), std::to_string(ports.master_port));
    // The first host, resolved once per step: an address, not a name.
    EXPECT_EQ(value_of(env, "NEURON_RT_ROOT_COMM_ID"),
              "127.0.0.1:" + std::to_string(ports.root_comm_port));
    EXPECT_EQ(value_of(env, "FI_PROVIDER"), "efa");
    EXPECT_EQ(value_of(env, "FI_EFA_USE_DEVICE_RDMA"), "1");
    EXPECT_EQ(value_of(env, "TRN_INSTANCE_TYPE"), "trn1.32xlarge");
    EXPECT_EQ(value_of(env, "TRN_CPUS"), "0-127");  // devices on both NUMA nodes
    EXPECT_NE(value_of(env, "TRN_EFA_DEVICES"), "<unset>");
    EXPECT_EQ(value_of(env, "NEURON_COMPILE_CACHE_URL"), (temp() / "cache" / "root").string());
    EXPECT_EQ(env.count("PET_NNODES"), 0u);
  }
}

TEST_F(RemoteStep, Trn1SixteenTasksOfTwoCoresFollowTheirNumaNode) {
  set_up_step(1, 0, 16, "localhost");
  const StepRun run = run_step(plugin(), args_for("trn1.32xlarge"));
  ASSERT_EQ(run.init_post_opt, 0);
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_RT_VISIBLE_CORES"), "0-1");
  EXPECT_EQ(value_of(run.task_env[0], "TRN_CPUS"), "0-31,64-95");
  EXPECT_EQ(value_of(run.task_env[2], "NEURON_RT_VISIBLE_CORES"), "4-5");
  EXPECT_EQ(value_of(run.task_env[2], "TRN_CPUS"), "32-63,96-127");
}

TEST_F(RemoteStep, BindCoresSplitsTheNumaNodeAndAllocCoresRestrictIt) {
  set_up_step(1, 0, 16, "localhost");
  StepRun run = run_step(plugin(), args_for("trn1.32xlarge"), {{"neuron-bind", "cores"}});
  EXPECT_EQ(value_of(run.task_env[0], "TRN_CPUS"), "0-3,64-67");
  EXPECT_EQ(value_of(run.task_env[2], "TRN_CPUS"), "32-35,96-99");

  fake_spank::state().step_alloc_cores = "0-15";  // socket 0's first 16 cores
  set_up_step(1, 0, 4, "localhost");
  run = run_step(plugin(), args_for("trn1.32xlarge"));
  for (const auto& env : run.task_env) EXPECT_EQ(value_of(env, "TRN_CPUS"), "0-15,64-79");
  run = run_step(plugin(), args_for("trn1.32xlarge", {"alloc_cores=ignore"}));
  for (const auto& env : run.task_env) EXPECT_EQ(value_of(env, "TRN_CPUS"), "0-127");

  run = run_step(plugin(), args_for("trn1.32xlarge", {"bind=none"}));
  EXPECT_EQ(value_of(run.task_env[0], "TRN_CPUS"), "0-15,64-79");  // all of the step's CPUs
}

TEST_F(RemoteStep, GrantedGpuGresLimitTheDevices) {
  set_up_step(1, 0, 2, "localhost");
  fake_spank::state().env["SLURM_STEP_GPUS"] = "2,3";
  fake_spank::state().env["SLURM_JOB_GPUS"] = "0-15";
  StepRun run = run_step(plugin(), args_for("trn1.32xlarge"));
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_RT_VISIBLE_CORES"), "4-5");
  EXPECT_EQ(value_of(run.task_env[1], "NEURON_RT_VISIBLE_CORES"), "6-7");
  EXPECT_EQ(value_of(run.task_env[0], "TRN_CPUS"), "32-63,96-127");

  fake_spank::state().env.erase("SLURM_STEP_GPUS");
  fake_spank::state().env["SLURM_JOB_GPUS"] = "4";
  run = run_step(plugin(), args_for("trn1.32xlarge"));
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_RT_VISIBLE_CORES"), "8");
  EXPECT_EQ(value_of(run.task_env[1], "NEURON_RT_VISIBLE_CORES"), "9");
}

TEST_F(RemoteStep, GpuGresFirstSeenInTheTaskEnvironmentArePlacedAgain) {
  set_up_step(1, 0, 2, "localhost");
  auto& host = fake_spank::state();
  ASSERT_EQ(plugin().call("init", args_for("trn1.32xlarge")), 0);
  ASSERT_EQ(plugin().call("init_post_opt", args_for("trn1.32xlarge")), 0);
  host.env["SLURM_STEP_GPUS"] = "15";
  host.task_id = 1;
  host.task_global_id = 1;
  ASSERT_EQ(plugin().call("task_init"), 0);
  EXPECT_EQ(value_of(host.env, "NEURON_RT_VISIBLE_CORES"), "31");
}

TEST_F(RemoteStep, GpuGresOnANodeWithoutNeuronDevicesAreLeftToOthers) {
  set_up_step(1, 0, 2, "localhost");
  fake_spank::state().env["SLURM_STEP_GPUS"] = "0,1";  // a CUDA node's GPUs
  const StepRun run = run_step(plugin(), args_for("cpu-only"));
  ASSERT_EQ(run.task_init, (std::vector<int>{0, 0}));
  EXPECT_EQ(value_of(run.task_env[0], "MASTER_ADDR"), "localhost");
}

TEST_F(RemoteStep, OneTaskPerNodeGetsTorchrunVariables) {
  set_up_step(2, 1, 1);
  const StepRun run = run_step(plugin(), args_for("inf2.48xlarge"));
  ASSERT_EQ(run.task_init[0], 0);
  const Env& env = run.task_env[0];
  EXPECT_EQ(value_of(env, "PET_NNODES"), "2");
  EXPECT_EQ(value_of(env, "PET_NODE_RANK"), "1");
  EXPECT_EQ(value_of(env, "PET_NPROC_PER_NODE"), "24");
  EXPECT_EQ(value_of(env, "PET_MASTER_ADDR"), "127.0.0.1");
  EXPECT_EQ(value_of(env, "NEURON_RT_VISIBLE_CORES"), "0-23");
  EXPECT_EQ(env.count("FI_PROVIDER"), 0u);  // inf2 has no EFA
}

TEST_F(RemoteStep, PerCoreTasksGetTheNeuronWorldAndTorchrunTasksDoNot) {
  set_up_step(2, 1, 32);
  StepRun run = run_step(plugin(), args_for("trn1.32xlarge"));
  ASSERT_EQ(run.task_init[5], 0);
  EXPECT_EQ(value_of(run.task_env[5], "NEURON_PJRT_PROCESS_INDEX"), "37");
  EXPECT_EQ(value_of(run.task_env[5], "NEURON_PJRT_WORLD_SIZE"), "64");
  EXPECT_EQ(value_of(run.task_env[5], "PJRT_LOCAL_PROCESS_COUNT"), "32");
  EXPECT_EQ(value_of(run.task_env[5], "PJRT_LOCAL_PROCESS_RANK"), "5");

  // One task per node running `argv`, with these options: the task's environment.
  const auto one_task = [this](std::vector<std::string> argv, const Options& options) {
    set_up_step(2, 1, 1);
    fake_spank::state().argv = std::move(argv);
    const StepRun one = run_step(plugin(), args_for("trn1.32xlarge"), options);
    EXPECT_EQ(one.task_init[0], 0);
    return one.task_env[0];
  };
  Env env = one_task({"/usr/bin/torchrun", "--nproc_per_node=32", "train.py"}, {});
  EXPECT_EQ(value_of(env, "NEURON_RT_VISIBLE_CORES"), "0-31");
  EXPECT_EQ(value_of(env, "NEURON_PJRT_PROCESS_INDEX"), "<unset>");
  EXPECT_EQ(value_of(env, "NEURON_PJRT_PROCESSES_NUM_DEVICES"), "<unset>");
  EXPECT_EQ(value_of(env, "PJRT_LOCAL_PROCESS_COUNT"), "<unset>");
  // A wrapper script that runs torchrun says so with --neuron-launch; without it, the script is
  // the worker.
  env = one_task({"bash", "run.sh"}, {{"neuron-launch", "torchrun"}});
  EXPECT_EQ(value_of(env, "NEURON_PJRT_PROCESS_INDEX"), "<unset>");
  env = one_task({"bash", "run.sh"}, {});
  EXPECT_EQ(value_of(env, "NEURON_PJRT_PROCESSES_NUM_DEVICES"), "32,32");
}

TEST_F(RemoteStep, Trn1SmallInstanceHasNoEfa) {
  set_up_step(1, 0, 2, "localhost");
  const StepRun run = run_step(plugin(), args_for("trn1.2xlarge"));
  EXPECT_EQ(value_of(run.task_env[1], "NEURON_RT_VISIBLE_CORES"), "1");
  EXPECT_EQ(run.task_env[1].count("FI_PROVIDER"), 0u);
  EXPECT_EQ(run.task_env[1].count("TRN_EFA_DEVICES"), 0u);
}

TEST_F(RemoteStep, Trn1nHasOneEfaPerDevice) {
  set_up_step(1, 0, 16, "localhost");
  const StepRun run = run_step(plugin(), args_for("trn1n.32xlarge"));
  ASSERT_EQ(run.task_init[0], 0);
  EXPECT_EQ(value_of(run.task_env[0], "FI_PROVIDER"), "efa");
  EXPECT_THAT(value_of(run.task_env[0], "TRN_EFA_DEVICES"), ::testing::Not(HasSubstr(",")));
}

TEST_F(RemoteStep, Trn2LogicalCoreConfigFromOptionEnvironmentOrNeuronLs) {
  set_up_step(1, 0, 16, "localhost");
  StepRun run = run_step(plugin(), args_for("trn2.48xlarge"));
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_LOGICAL_NC_CONFIG"), "2");
  EXPECT_EQ(value_of(run.task_env[4], "NEURON_RT_VISIBLE_CORES"), "16-19");

  run = run_step(plugin(), args_for("trn2.48xlarge"), {{"neuron-lnc", "1"}});
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_LOGICAL_NC_CONFIG"), "1");
  EXPECT_EQ(value_of(run.task_env[1], "NEURON_RT_VISIBLE_CORES"), "8-15");

  const auto lnc1 = fixture("trn2.48xlarge") / "neuron-ls-lnc1.json";
  run = run_step(plugin(), args_for("trn2.48xlarge", {"neuron_ls=" + lnc1.string()}));
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_LOGICAL_NC_CONFIG"), "1");

  fake_spank::state().env["NEURON_LOGICAL_NC_CONFIG"] = "1";
  run = run_step(plugin(), args_for("trn2.48xlarge"), {{"neuron-lnc", "2"}});
  EXPECT_LT(run.task_init[0], 0);
  EXPECT_THAT(fake_spank::log_lines("error", "spank_trn: "),
              ::testing::Contains(HasSubstr("conflicts with NEURON_LOGICAL_NC_CONFIG=1")));
}

TEST_F(RemoteStep, CpuOnlyNodeGetsRendezvousOnlyAndSaysSoOnce) {
  set_up_step(2, 0, 2);
  const Env before = fake_spank::state().env;
  const StepRun run = run_step(plugin(), args_for("cpu-only"));
  ASSERT_EQ(run.task_init, (std::vector<int>{0, 0}));
  const Env env = added(before, run.task_env[1]);
  EXPECT_EQ(value_of(env, "MASTER_ADDR"), "localhost");
  EXPECT_EQ(value_of(env, "RANK"), "1");
  EXPECT_EQ(value_of(env, "WORLD_SIZE"), "4");
  EXPECT_EQ(value_of(env, "TRN_CPUS"), "0-7");
  EXPECT_EQ(env.count("NEURON_RT_VISIBLE_CORES"), 0u);
  EXPECT_EQ(env.count("NEURON_RT_ROOT_COMM_ID"), 0u);
  EXPECT_EQ(env.count("FI_PROVIDER"), 0u);
  const auto lines = fake_spank::log_lines("", "no Neuron devices");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(fake_spank::log_lines("verbose", "spank_trn: no Neuron devices").size(), 1u);
}

TEST_F(RemoteStep, EfaRequiredOnANodeWithoutEfaFailsNamingTheNode) {
  set_up_step(2, 1, 2);
  StepRun run = run_step(plugin(), args_for("cpu-only", {"efa=required"}));
  EXPECT_EQ(run.init_post_opt, 0);  // reported from task_init, where the user sees it
  EXPECT_LT(run.task_init[0], 0);
  EXPECT_LT(run.task_init[1], 0);
  auto errors = fake_spank::log_lines("error", "spank_trn: EFA is required");
  ASSERT_FALSE(errors.empty());
  EXPECT_THAT(errors.back(), HasSubstr("node1"));

  fake_spank::state().log.clear();
  run = run_step(plugin(), args_for("inf2.48xlarge"), {{"neuron-efa", "required"}});
  EXPECT_LT(run.task_init[0], 0);
  EXPECT_FALSE(fake_spank::log_lines("error", "spank_trn: EFA is required").empty());

  run = run_step(plugin(), args_for("trn1.32xlarge", {"efa=required"}));
  EXPECT_EQ(run.task_init[0], 0);
}

TEST_F(RemoteStep, EfaOffSetsNoFabricVariables) {
  set_up_step(1, 0, 4, "localhost");
  StepRun run = run_step(plugin(), args_for("trn1.32xlarge", {"efa=off"}));
  EXPECT_EQ(run.task_env[0].count("FI_PROVIDER"), 0u);
  EXPECT_EQ(run.task_env[0].count("TRN_EFA_DEVICES"), 0u);
  run = run_step(plugin(), args_for("trn1.32xlarge"), {{"neuron-efa", "off"}});
  EXPECT_EQ(run.task_env[0].count("FI_PROVIDER"), 0u);
}

TEST_F(RemoteStep, NeuronTrnOffAndDefaultOffSetNothing) {
  set_up_step(1, 0, 2, "localhost");
  const Env before = fake_spank::state().env;
  StepRun run = run_step(plugin(), args_for("trn1.32xlarge"), {{"neuron-trn", "off"}});
  for (const auto& env : run.task_env) EXPECT_EQ(env, before);
  EXPECT_EQ(fake_spank::state().setenv_calls, 0);

  run = run_step(plugin(), args_for("trn1.32xlarge", {"default=off"}));
  for (const auto& env : run.task_env) EXPECT_EQ(env, before);
  // default=off: any --neuron-* option (or --neuron-trn=on) asks for it.
  run = run_step(plugin(), args_for("trn1.32xlarge", {"default=off"}), {{"neuron-bind", "numa"}});
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_RT_VISIBLE_CORES"), "0-15");
  run = run_step(plugin(), args_for("trn1.32xlarge", {"default=off"}), {{"neuron-trn", "on"}});
  EXPECT_EQ(value_of(run.task_env[1], "NEURON_RT_VISIBLE_CORES"), "16-31");
}

TEST_F(RemoteStep, BatchExternAndInteractiveStepsAreLeftAlone) {
  for (std::uint32_t step : {0xfffffffbu, 0xfffffffcu, 0xfffffffau}) {
    set_up_step(1, 0, 1, "localhost");
    fake_spank::state().step_id = step;
    const Env before = fake_spank::state().env;
    const StepRun run = run_step(plugin(), args_for("trn1.32xlarge"));
    EXPECT_EQ(run.task_init[0], 0);
    EXPECT_EQ(run.task_env[0], before) << std::hex << step;
  }
}

TEST_F(RemoteStep, VariablesTheUserSetWinUnlessTheyAskOtherwise) {
  set_up_step(1, 0, 2, "localhost");
  auto& env = fake_spank::state().env;
  env["NEURON_RT_VISIBLE_CORES"] = "3";
  env["MASTER_ADDR"] = "10.1.2.3";
  env["FI_PROVIDER"] = "tcp";
  StepRun run = run_step(plugin(), args_for("trn1.32xlarge"));
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_RT_VISIBLE_CORES"), "3");
  EXPECT_EQ(value_of(run.task_env[0], "FI_PROVIDER"), "tcp");
  EXPECT_EQ(value_of(run.task_env[0], "MASTER_ADDR"), "10.1.2.3");
  EXPECT_THAT(value_of(run.task_env[0], "NEURON_RT_ROOT_COMM_ID"),
              ::testing::StartsWith("10.1.2.3:"));
  EXPECT_EQ(value_of(run.task_env[0], "TRN_CPUS"), "0-127");  // the decision is always recorded
  // The kept placement is worth a warning, once per node (task 0), that the user sees.
  EXPECT_EQ(fake_spank::log_lines("info", "spank_trn: warning: NEURON_RT_VISIBLE_CORES=3").size(),
            1u);

  run = run_step(plugin(), args_for("trn1.32xlarge"), {{"neuron-env", "override"}});
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_RT_VISIBLE_CORES"), "0-15");
  EXPECT_EQ(value_of(run.task_env[1], "FI_PROVIDER"), "efa");
  EXPECT_EQ(value_of(run.task_env[1], "MASTER_ADDR"), "localhost");
}

TEST_F(RemoteStep, CompileCacheFromOptionLocalTierOrNotAtAll) {
  set_up_step(1, 0, 1, "localhost");
  fake_spank::state().uid = 65534;
  fake_spank::state().gid = 65534;
  StepRun run = run_step(plugin(), args_for("cpu-only"));
  const auto mine = temp() / "cache" / "nobody";
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_COMPILE_CACHE_URL"), mine.string());
  EXPECT_EQ(std::filesystem::status(mine).type(), std::filesystem::file_type::directory);

  run = run_step(plugin(), args_for("cpu-only"), {{"neuron-cache", "s3://bucket/cache"}});
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_COMPILE_CACHE_URL"), "s3://bucket/cache");
  run = run_step(plugin(), args_for("cpu-only"), {{"neuron-cache", "off"}});
  EXPECT_EQ(run.task_env[0].count("NEURON_COMPILE_CACHE_URL"), 0u);
  run = run_step(plugin(), args_for("cpu-only", {"local_cache=off"}));
  EXPECT_EQ(run.task_env[0].count("NEURON_COMPILE_CACHE_URL"), 0u);

  // --cache_dir in NEURON_CC_FLAGS beats the URL in the compiler: warn, never edit the flags.
  fake_spank::state().env["NEURON_CC_FLAGS"] = "--model-type=transformer --cache_dir=/mine";
  run = run_step(plugin(), args_for("cpu-only"));
  EXPECT_EQ(run.task_env[0].count("NEURON_COMPILE_CACHE_URL"), 0u);
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_CC_FLAGS"),
            "--model-type=transformer --cache_dir=/mine");
  EXPECT_FALSE(fake_spank::log_lines("info", "spank_trn: warning: NEURON_CC_FLAGS").empty());
}

TEST_F(RemoteStep, AnUnusableLocalTierIsAWarningNotAFailure) {
  set_up_step(1, 0, 2, "localhost");
  std::filesystem::create_directories(temp() / "elsewhere");
  std::filesystem::create_directory_symlink(temp() / "elsewhere", temp() / "cache");
  const StepRun run = run_step(plugin(), args_for("cpu-only"));
  EXPECT_EQ(run.task_init, (std::vector<int>{0, 0}));
  EXPECT_EQ(run.task_env[0].count("NEURON_COMPILE_CACHE_URL"), 0u);
  // Once per node, from task 0, where the user sees it.
  const auto warnings = fake_spank::log_lines("info", "spank_trn: warning: refusing");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("symbolic link"));
  EXPECT_THAT(warnings[0], HasSubstr("NEURON_COMPILE_CACHE_URL left unset"));
}

TEST_F(RemoteStep, AnUnresolvableFirstHostFailsOnlyWhereNeuronCollectivesNeedIt) {
  set_up_step(2, 1, 1, "no-such-node.invalid,trn-b");
  StepRun run = run_step(plugin(), args_for("cpu-only"));
  EXPECT_EQ(run.task_init[0], 0);
  EXPECT_EQ(value_of(run.task_env[0], "PET_MASTER_ADDR"), "no-such-node.invalid");

  run = run_step(plugin(), args_for("trn1.32xlarge"));
  EXPECT_LT(run.task_init[0], 0);
  EXPECT_THAT(fake_spank::log_lines("error", "spank_trn: cannot resolve no-such-node.invalid"),
              ::testing::SizeIs(::testing::Ge(1u)));

  fake_spank::state().env["MASTER_ADDR"] = "10.0.0.9";
  run = run_step(plugin(), args_for("trn1.32xlarge"));
  EXPECT_EQ(run.task_init[0], 0);
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_RT_ROOT_COMM_ID").rfind("10.0.0.9:", 0), 0u);
}

TEST_F(RemoteStep, MissingNodeListFailsTheStep) {
  set_up_step(1, 0, 1);
  fake_spank::state().env.erase("SLURM_STEP_NODELIST");
  fake_spank::state().env.erase("SLURM_JOB_NODELIST");
  const StepRun run = run_step(plugin(), args_for("cpu-only"));
  EXPECT_LT(run.task_init[0], 0);
  EXPECT_FALSE(fake_spank::log_lines("error", "spank_trn: the step's environment has no").empty());
}

TEST_F(RemoteStep, JobNodeListIsTheFallbackAndHostlistsExpand) {
  set_up_step(2, 0, 1);
  fake_spank::state().env.erase("SLURM_STEP_NODELIST");
  fake_spank::state().env["SLURM_JOB_NODELIST"] = "trn-st-[003-005]";
  const StepRun run = run_step(plugin(), args_for("cpu-only"));
  EXPECT_EQ(value_of(run.task_env[0], "MASTER_ADDR"), "trn-st-003");
}

TEST_F(RemoteStep, TasksAfterExitGetNothing) {
  set_up_step(1, 0, 1, "localhost");
  ASSERT_EQ(plugin().call("init", args_for("trn1.32xlarge")), 0);
  ASSERT_EQ(plugin().call("init_post_opt", args_for("trn1.32xlarge")), 0);
  ASSERT_EQ(plugin().call("exit"), 0);
  const Env before = fake_spank::state().env;
  fake_spank::state().task_id = 0;
  EXPECT_EQ(plugin().call("task_init"), 0);
  EXPECT_EQ(fake_spank::state().env, before);
}

TEST_F(RemoteStep, AnInvalidForwardedOptionFailsTheStepWithItsMessage) {
  set_up_step(1, 0, 2, "localhost");
  const StepRun run = run_step(plugin(), args_for("trn1.32xlarge"), {{"neuron-bind", "sideways"}});
  EXPECT_NE(run.option_results[0], 0);
  EXPECT_LT(run.task_init[0], 0);
  EXPECT_LT(run.task_init[1], 0);
  // One message per node: task 0 reports it, the others fail quietly.
  EXPECT_EQ(fake_spank::log_lines("error", "spank_trn: --neuron-bind=sideways").size(), 1u);
  EXPECT_EQ(
      fake_spank::log_lines("error", "spank_trn: init_post_opt: --neuron-bind=sideways").size(),
      1u);
}

TEST_F(RemoteStep, AnOptionGivenTwiceTakesTheLastValue) {
  set_up_step(1, 0, 1, "localhost");
  const StepRun run = run_step(plugin(), args_for("trn1.32xlarge"),
                               {{"neuron-cores-per-task", "4"}, {"neuron-cores-per-task", "2"}});
  EXPECT_EQ(value_of(run.task_env[0], "NEURON_RT_VISIBLE_CORES"), "0-1");
}

}  // namespace
}  // namespace trn::test
