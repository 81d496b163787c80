// tests/profiles-broken/: each file is a profile with one defect. Its leading comments say
//   # expect: MESSAGE      the error must start with MESSAGE ({file} stands for the path)
//   # plan: N x C          optional: plan on N nodes with C NeuronCores each (0: CPU nodes);
//                          without it the file must already fail to load.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "plan_test_support.hpp"
#include "trn/plan/load_profile.hpp"
#include "trn/plan/plan.hpp"

namespace {

namespace fs = std::filesystem;
using plan_test::error_of;

struct Expectation {
  std::string message;
  std::optional<std::pair<std::int64_t, std::int64_t>> plan_on;
};

Expectation expectation_of(const fs::path& file) {
  Expectation expectation;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line) && line.starts_with("#");) {
    if (line.starts_with("# expect: ")) {
      expectation.message = line.substr(10);
      const auto at = expectation.message.find("{file}");
      if (at != std::string::npos) expectation.message.replace(at, 6, file.string());
    } else if (line.starts_with("# plan: ")) {
      std::istringstream words(line.substr(8));
      std::int64_t nodes = 0;
      std::int64_t cores = 0;
      std::string times;
      if (words >> nodes >> times >> cores && times == "x") {
        expectation.plan_on = std::pair{nodes, cores};
      }
    }
  }
  return expectation;
}

std::vector<fs::path> broken_profiles() {
  std::vector<fs::path> files;
  for (const auto& entry :
       fs::directory_iterator(plan_test::source_dir / "tests" / "profiles-broken")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class BrokenProfile : public testing::TestWithParam<fs::path> {};

TEST_P(BrokenProfile, FailsWithTheExpectedMessage) {
  const Expectation expected = expectation_of(GetParam());
  ASSERT_FALSE(expected.message.empty()) << GetParam() << " states no '# expect:' line";
  const std::string message = error_of([&] {
    const auto profile = trn::plan::load_profile_file(GetParam());
    if (!expected.plan_on) {
      ADD_FAILURE() << "loaded without error; add a '# plan: N x C' line for plan errors";
      return;
    }
    trn::plan::PlanRequest request;
    request.cluster.nodes = expected.plan_on->first;
    request.cluster.neuron_cores_per_node = expected.plan_on->second;
    trn::plan::make_plan(profile, request);
  });
  EXPECT_THAT(message, testing::StartsWith(expected.message));
}

std::string test_name(const testing::TestParamInfo<fs::path>& param_info) {
  std::string name = param_info.param.stem().string();
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(ProfilesBroken, BrokenProfile, testing::ValuesIn(broken_profiles()),
                         test_name);

TEST(BrokenProfiles, TheCorpusIsNotEmpty) { EXPECT_GE(broken_profiles().size(), 20u); }

}  // namespace
