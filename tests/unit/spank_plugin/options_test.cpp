// srun (local), sbatch/salloc (allocator) and slurmd contexts: option registration, early
// validation of option values, and plugstack argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plugin_test.hpp"

namespace trn::test {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kOptionNames = {"neuron-cores-per-task",
                                               "neuron-bind",
                                               "neuron-efa",
                                               "neuron-cache",
                                               "neuron-lnc",
                                               "neuron-trn",
                                               "neuron-env",
                                               "neuron-launch"};

class PluginOptions : public PluginTest, public ::testing::WithParamInterface<spank_context_t> {};

TEST_P(PluginOptions, EveryOptionIsRegisteredWithAValueAndUsage) {
  fake_spank::state().context = GetParam();
  ASSERT_EQ(plugin().call("init", args_for("trn1.32xlarge")), 0);
  std::vector<std::string> names;
  for (const auto& option : fake_spank::state().options) {
    names.push_back(option.name);
    EXPECT_EQ(option.has_arg, 1) << option.name;
    EXPECT_FALSE(option.arginfo.empty()) << option.name;
    EXPECT_THAT(option.usage, HasSubstr("[spank_trn]"));
    EXPECT_NE(option.cb, nullptr);
  }
  EXPECT_EQ(names, kOptionNames);
}

struct BadValue {
  const char* option;
  const char* value;
  const char* message;
};

TEST_P(PluginOptions, BadValuesStopTheCommandWithAMessage) {
  fake_spank::state().context = GetParam();
  ASSERT_EQ(plugin().call("init", args_for("trn1.32xlarge")), 0);
  const BadValue bad[] = {
      {"neuron-cores-per-task", "0", "--neuron-cores-per-task=0 is not a count"},
      {"neuron-cores-per-task", "eight", "--neuron-cores-per-task=eight is not a count"},
      {"neuron-cores-per-task", "-2", "whole number from 1 to 1024"},
      {"neuron-cores-per-task", "99999", "whole number from 1 to 1024"},
      {"neuron-cores-per-task", "", "--neuron-cores-per-task= is not a count"},
      {"neuron-bind", "bogus", "--neuron-bind=bogus is not a CPU binding mode"},
      {"neuron-efa", "maybe", "--neuron-efa=maybe is not an EFA mode"},
      {"neuron-cache", "relative/dir", "give an absolute directory, an s3:// URL or off"},
      {"neuron-lnc", "4", "--neuron-lnc=4 is not a logical NeuronCore config"},
      {"neuron-trn", "no", "--neuron-trn=no is not valid: use on or off"},
      {"neuron-env", "replace", "use keep or override"},
      {"neuron-launch", "mpirun", "--neuron-launch=mpirun is not a launch mode"},
  };
  for (const auto& b : bad) {
    fake_spank::state().log.clear();
    EXPECT_NE(plugin().option(b.option, b.value, false), 0) << b.option << "=" << b.value;
    const auto errors = fake_spank::log_lines("error", "spank_trn: ");
    ASSERT_EQ(errors.size(), 1u) << b.option;
    EXPECT_THAT(errors[0], HasSubstr(b.message));
    EXPECT_EQ(errors[0].rfind("spank_trn: ", 0), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Contexts, PluginOptions,
                         ::testing::Values(S_CTX_LOCAL, S_CTX_ALLOCATOR, S_CTX_REMOTE),
                         [](const auto& param_info) {
                           return param_info.param == S_CTX_LOCAL       ? std::string("srun")
                                  : param_info.param == S_CTX_ALLOCATOR ? std::string("sbatch")
                                                                        : std::string("slurmstepd");
                         });

// srun and sbatch/salloc: what the user asked for, at verbose level (srun -v).
class ClientOptions : public PluginTest, public ::testing::WithParamInterface<spank_context_t> {};

TEST_P(ClientOptions, GoodValuesAreAcceptedAndSummarisedAtVerboseLevel) {
  fake_spank::state().context = GetParam();
  ASSERT_EQ(plugin().call("init", args_for("trn1.32xlarge")), 0);
  const std::pair<const char*, const char*> good[] = {
      {"neuron-cores-per-task", "8"}, {"neuron-bind", "cores"}, {"neuron-efa", "required"},
      {"neuron-cache", "/fsx/cache"}, {"neuron-lnc", "2"},      {"neuron-trn", "on"},
      {"neuron-env", "override"}};
  for (const auto& [name, value] : good) EXPECT_EQ(plugin().option(name, value, false), 0) << name;
  EXPECT_EQ(plugin().call("init_post_opt", args_for("trn1.32xlarge")), 0);
  const auto lines = fake_spank::log_lines("verbose", "spank_trn: tasks get 8 NeuronCores each");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("bind cores"));
  EXPECT_THAT(lines[0], HasSubstr("EFA required"));
  EXPECT_THAT(lines[0], HasSubstr("compile cache /fsx/cache"));
  EXPECT_TRUE(fake_spank::log_lines("error").empty());
  EXPECT_EQ(plugin().call("exit"), 0);
}

TEST_P(ClientOptions, TrnOffIsAcknowledged) {
  fake_spank::state().context = GetParam();
  ASSERT_EQ(plugin().call("init", args_for("trn1.32xlarge")), 0);
  ASSERT_EQ(plugin().option("neuron-trn", "off", false), 0);
  EXPECT_EQ(plugin().call("init_post_opt", args_for("trn1.32xlarge")), 0);
  EXPECT_EQ(fake_spank::log_lines("verbose", "--neuron-trn=off: nothing will be set").size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Contexts, ClientOptions, ::testing::Values(S_CTX_LOCAL, S_CTX_ALLOCATOR),
                         [](const auto& param_info) {
                           return param_info.param == S_CTX_LOCAL ? std::string("srun")
                                                                  : std::string("sbatch");
                         });

class PlugstackArguments : public PluginTest {};

TEST_F(PlugstackArguments, BadArgumentsFailInitWithTheFix) {
  const std::pair<std::vector<std::string>, const char*> bad[] = {
      {{"colour=blue"}, "'colour=blue': it is unknown: the plugin takes fsroot=DIR"},
      {{"fsroot"}, "'fsroot': it is not key=value"},
      {{"fsroot=relative"}, "'fsroot=relative': the path must be absolute"},
      {{"local_cache=tmp"}, "the path must be absolute"},
      {{"efa=sometimes"}, "efa=sometimes is not an EFA mode: use auto, required or off"},
      {{"bind=tight"}, "bind=tight is not a CPU binding mode"},
      {{"default=yes"}, "use on or off"},
      {{"alloc_cores=some"}, "use use or ignore"},
      {{"neuron_ls=ls.json"}, "the path must be absolute"},
  };
  for (const auto& [args, message] : bad) {
    for (spank_context_t context : {S_CTX_LOCAL, S_CTX_ALLOCATOR}) {
      fake_spank::reset();
      fake_spank::state().context = context;
      EXPECT_LT(plugin().call("init", args), 0) << args[0];
      const auto errors = fake_spank::log_lines("error", "spank_trn: plugstack.conf argument");
      ASSERT_EQ(errors.size(), 1u) << args[0];
      EXPECT_THAT(errors[0], HasSubstr(message));
    }
    // slurmstepd: the step fails from task_init, where the user sees the message.
    fake_spank::reset();
    set_up_step(1, 0, 2, "localhost");
    const StepRun run = run_step(plugin(), args);
    EXPECT_EQ(run.init, 0) << args[0];
    EXPECT_EQ(run.init_post_opt, 0);
    EXPECT_LT(run.task_init[0], 0);
    EXPECT_LT(run.task_init[1], 0);
    const auto errors = fake_spank::log_lines("error", "spank_trn: plugstack.conf argument");
    ASSERT_EQ(errors.size(), 1u) << args[0];  // task 0; task 1 fails quietly
    EXPECT_THAT(errors[0], HasSubstr(message));
    EXPECT_EQ(fake_spank::log_lines("error", "spank_trn: init: plugstack.conf").size(), 1u);
    EXPECT_EQ(fake_spank::state().options.size(), kOptionNames.size());  // options still parse
  }
}

TEST_F(PlugstackArguments, SlurmdKeepsRunningOnABadLineAndRegistersNothing) {
  fake_spank::state().context = S_CTX_SLURMD;
  EXPECT_EQ(plugin().call("init", {"colour=blue"}), 0);
  EXPECT_EQ(
      fake_spank::log_lines("error", "spank_trn: plugstack.conf argument 'colour=blue'").size(),
      1u);
  fake_spank::state().log.clear();
  EXPECT_EQ(plugin().call("init", args_for("trn1.32xlarge")), 0);
  EXPECT_TRUE(fake_spank::state().options.empty());
  EXPECT_TRUE(fake_spank::log_lines("error").empty());
}

TEST_F(PlugstackArguments, EveryDocumentedArgumentIsAccepted) {
  fake_spank::state().context = S_CTX_LOCAL;
  EXPECT_EQ(plugin().call("init", {"fsroot=/", "cache_root=/fsx/neuron-cache",
                                   "local_cache=/var/tmp/neuron-compile-cache", "efa=required",
                                   "bind=cores", "default=off", "topology_cache=/run/trn-slurm",
                                   "neuron_ls=off", "alloc_cores=ignore"}),
            0);
  EXPECT_TRUE(fake_spank::log_lines("error").empty());
}

TEST_F(PlugstackArguments, ARefusedOptionRegistrationIsReported) {
  fake_spank::state().context = S_CTX_LOCAL;
  fake_spank::state().refuse_option_register = true;
  EXPECT_LT(plugin().call("init", args_for("trn1.32xlarge")), 0);
  EXPECT_FALSE(fake_spank::log_lines("error", "spank_trn: cannot register --neuron-").empty());
}

}  // namespace
}  // namespace trn::test
