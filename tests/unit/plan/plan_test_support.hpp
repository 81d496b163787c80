#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.hpp"
#include "trn/common/error.hpp"
#include "trn/plan/load_profile.hpp"
#include "trn/plan/plan.hpp"

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

// The smallest complete profile text, to which tests add keys.
inline const std::string minimal_profile =
    "command: python3 train.py --mb {micro_batch} --gbs {global_batch}\n"
    "micro_batch: 4\n"
    "global_batch: 64\n"
    "steps: 10\n";

}  // namespace plan_test
