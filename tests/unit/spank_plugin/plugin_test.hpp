#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fake_spank_host.hpp"
#include "plugin_driver.hpp"
#include "temp_dir.hpp"

namespace trn::test {

// Every test starts with a clean fake host, the plugin loaded, and private cache directories.
class PluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_spank::reset();
    plugin_ = std::make_unique<Plugin>();
  }

  // Plugstack arguments for a fixture (or "/" for the machine itself) with this test's caches.
  std::vector<std::string> args_for(const std::string& fixture_name,
                                    std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {
        "fsroot=" + (fixture_name == "/" ? std::string("/") : fixture(fixture_name).string()),
        "topology_cache=" + (temp_.path() / "topology").string(),
        "local_cache=" + (temp_.path() / "cache").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  Plugin& plugin() { return *plugin_; }
  const std::filesystem::path& temp() const { return temp_.path(); }

 private:
  TempDir temp_;
  std::unique_ptr<Plugin> plugin_;
};

inline std::string value_of(const Env& env, const std::string& name) {
  const auto it = env.find(name);
  return it == env.end() ? "<unset>" : it->second;
}

}  // namespace trn::test
