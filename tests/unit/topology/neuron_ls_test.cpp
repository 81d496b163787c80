#include "trn/topology/neuron_ls.hpp"

#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include "trn/common/error.hpp"

using namespace trn::topology;

TEST(NeuronLs, ParsesTheDeviceArray) {
  const auto devices =
      parse_neuron_ls({R"([{"neuron_device": 1, "bdf": "b5:00.0", "logical_neuroncore_config": 2,
            "nc_count": 4,
            "connected_to": [13, 0, 5, 2]},
           {"neuron_device": 0, "bdf": "0000:cc:00.0"}])",
                       "test"});
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].index, 1u);
  EXPECT_EQ(devices[0].pci.to_string(), "0000:b5:00.0");
  EXPECT_EQ(devices[0].logical_core_config, 2u);
  EXPECT_EQ(devices[0].core_count, 4u);
  EXPECT_EQ(devices[1].pci.to_string(), "0000:cc:00.0");
  EXPECT_FALSE(devices[1].logical_core_config.has_value());
  EXPECT_FALSE(devices[1].core_count.has_value());
}

TEST(NeuronLs, RejectsWhatIsNotItsOutput) {
  for (const char* text :
       {"", "{}", "[1]", R"([{"bdf": "cc:00.0"}])", R"([{"neuron_device": 0}])",
        R"([{"neuron_device": -1, "bdf": "cc:00.0"}])", R"([{"neuron_device": 0, "bdf": "cc"}])",
        R"([{"neuron_device": 0, "bdf": "cc:00.0"},
                               {"neuron_device": 0, "bdf": "cb:00.0"}])"}) {
    try {
      parse_neuron_ls({text, "recorded.json"});
      FAIL() << text;
    } catch (const trn::Error& e) {
      EXPECT_NE(std::string(e.what()).find("recorded.json"), std::string::npos) << e.what();
    }
  }
}

TEST(NeuronLs, RunsTheToolAndCapturesItsOutput) {
  trn::test::TempDir dir;
  const auto tool = dir.write_script("neuron-ls",
                                     R"(test "$1" = -j || exit 3
echo '[{"neuron_device": 0, "bdf": "00:1e.0"}]'
echo noise >&2)");
  const auto output = run_neuron_ls(tool, std::chrono::seconds(5));
  ASSERT_TRUE(output.has_value());
  EXPECT_EQ(parse_neuron_ls(*output).at(0).pci.to_string(), "0000:00:1e.0");
  EXPECT_EQ(output->origin, tool.string() + " -j");
}

TEST(NeuronLs, MissingToolIsNotAnError) {
  EXPECT_FALSE(run_neuron_ls("/nonexistent/neuron-ls").has_value());
}

TEST(NeuronLs, FailingOrHangingToolIsAClearError) {
  trn::test::TempDir dir;
  try {
    run_neuron_ls(dir.write_script("fails", "exit 4"), std::chrono::seconds(5));
    FAIL();
  } catch (const trn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("exit status 4"), std::string::npos) << e.what();
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    run_neuron_ls(dir.write_script("hangs", "exec sleep 30"), std::chrono::milliseconds(200));
    FAIL();
  } catch (const trn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("did not finish within 200 ms"), std::string::npos);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}
