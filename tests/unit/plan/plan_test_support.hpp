#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "trn/common/error.hpp"
#include "trn/plan/load_profile.hpp"
#include "trn/plan/plan.hpp"
#include "trn/plan/plan_report.hpp"

namespace plan_test {

using trn::test::TempDir;

inline const std::filesystem::path source_dir{TRN_SOURCE_DIR};
inline const std::filesystem::path bundled_dir = source_dir / "launcher" / "profiles";

inline trn::plan::Profile bundled(const std::string& name) {
  return trn::plan::load_profile_file(bundled_dir / (name + ".yaml"));
}

// The message of the trn::Error `action` throws; fails the test when it throws nothing.
template <typename Action>
std::string error_of(Action&& action) {
  try {
    action();
  } catch (const trn::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a trn::Error";
  return "";
}

// A cluster of `nodes` nodes with `cores` NeuronCores each (0: CPU nodes).
inline trn::plan::PlanRequest on(std::int64_t nodes, std::int64_t cores) {
  trn::plan::PlanRequest request;
  request.cluster.nodes = nodes;
  request.cluster.neuron_cores_per_node = cores;
  return request;
}

inline trn::plan::Plan plan_on(const trn::plan::Profile& profile, std::int64_t nodes,
                               std::int64_t cores) {
  return trn::plan::make_plan(profile, on(nodes, cores));
}

// The value after `flag` in a command line; "(absent)" without the flag or a value after it.
inline std::string flag_value(const std::vector<std::string>& argv, const std::string& flag) {
  const auto it = std::find(argv.begin(), argv.end(), flag);
  return it == argv.end() || it + 1 == argv.end() ? "(absent)" : *(it + 1);
}

// The plan.json values a test pins, by key; each is its own expectation, named in the failure.
inline void expect_plan_values(const trn::plan::Plan& plan,
                               const std::map<std::string, nlohmann::json>& expected) {
  const nlohmann::json json = trn::plan::to_json(plan);
  for (const auto& [key, value] : expected) EXPECT_EQ(json.at(key), value) << key;
}

// Each flag of `expected` stands in `argv` with its value, checked one by one.
inline void expect_flags(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& expected) {
  for (const auto& [flag, value] : expected) EXPECT_EQ(flag_value(argv, flag), value) << flag;
}

// The smallest complete profile text, to which tests add keys.
inline const std::string minimal_profile =
    "command: python3 train.py --mb {micro_batch} --gbs {global_batch}\n"
    "micro_batch: 4\n"
    "global_batch: 64\n"
    "steps: 10\n";

}  // namespace plan_test
