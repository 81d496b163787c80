// What Slurm's plugin loader looks up in spank_trn.so.
#include <gtest/gtest.h>

#include <cstring>

#include "plugin_test.hpp"

namespace trn::test {
namespace {

class Identity : public PluginTest {};

TEST_F(Identity, NameTypeAndVersionAreWhatTheLoaderChecks) {
  const auto* name = static_cast<const char*>(plugin().symbol("plugin_name"));
  const auto* type = static_cast<const char*>(plugin().symbol("plugin_type"));
  const auto* version = static_cast<const unsigned*>(plugin().symbol("plugin_version"));
  ASSERT_NE(name, nullptr);
  ASSERT_NE(type, nullptr);
  ASSERT_NE(version, nullptr);
  EXPECT_STREQ(name, "spank_trn");
  EXPECT_STREQ(type, "spank");
  // The loader refuses a plugin built for another major.minor.
  EXPECT_EQ(SLURM_VERSION_MAJOR(*version), SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER));
  EXPECT_EQ(SLURM_VERSION_MINOR(*version), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
  EXPECT_NE(plugin().symbol("spank_plugin_version"), nullptr);
}

TEST_F(Identity, OnlyTheSpankInterfaceIsVisible) {
  for (const char* callback :
       {"slurm_spank_init", "slurm_spank_init_post_opt", "slurm_spank_task_init_privileged",
        "slurm_spank_task_init", "slurm_spank_exit"}) {
    EXPECT_NE(plugin().symbol(callback), nullptr) << callback;
  }
  // A SPANK prolog costs a process per job and node, and drains the node when it fails: the
  // root-side work happens in init_post_opt instead.
  EXPECT_EQ(plugin().symbol("slurm_spank_job_prolog"), nullptr);
  EXPECT_EQ(plugin().symbol("slurm_spank_job_epilog"), nullptr);
  // The loader calls init()/fini() of any plugin that has them; core's code must stay hidden.
  EXPECT_EQ(plugin().symbol("init"), nullptr);
  EXPECT_EQ(plugin().symbol("fini"), nullptr);
  EXPECT_EQ(plugin().symbol("spank_options"), nullptr);  // options are registered, not a table
  EXPECT_EQ(
      plugin().symbol("_ZN3trn5ErrorC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"),
      nullptr);
}

}  // namespace
}  // namespace trn::test
