#include "trn/run/worker_core.hpp"

#include <gtest/gtest.h>

#include <string>

#include "trn/common/error.hpp"

namespace {

using trn::run::worker_visible_core;

std::string error_of(const std::optional<std::string>& cores,
                     const std::optional<std::string>& rank,
                     const std::optional<std::string>& count) {
  try {
    worker_visible_core(cores, rank, count);
  } catch (const trn::Error& e) {
    return e.what();
  }
  return "";
}

TEST(WorkerCore, EachLocalRankTakesItsOwnCoreOfTheTaskRange) {
  // A trn2.48xlarge at logical NeuronCore config 2: the task holds 0-63, torchrun starts 64.
  EXPECT_EQ(worker_visible_core("0-63", "0", "64"), "0");
  EXPECT_EQ(worker_visible_core("0-63", "37", "64"), "37");
  EXPECT_EQ(worker_visible_core("0-63", "63", "64"), "63");
  // A task given part of a node (e.g. --neuron-cores-per-task=4 at the second place).
  EXPECT_EQ(worker_visible_core("4-7", "0", "4"), "4");
  EXPECT_EQ(worker_visible_core("4-7", "3", "4"), "7");
  EXPECT_EQ(worker_visible_core("0-1,8-9", "2", "4"), "8");
  EXPECT_EQ(worker_visible_core("5", "0", "1"), "5");
}

TEST(WorkerCore, ARangeOfAnotherSizeThanTheWorkersIsOneLine) {
  const auto message = error_of("0-63", "0", "32");
  EXPECT_NE(message.find("NEURON_RT_VISIBLE_CORES 0-63 names 64 NeuronCores but LOCAL_WORLD_SIZE "
                         "is 32"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--nproc_per_node=64"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_NE(error_of("0-3", "0", "8"), "");
}

TEST(WorkerCore, MissingOrMalformedInputsAreNamed) {
  EXPECT_NE(error_of(std::nullopt, "0", "64").find("NEURON_RT_VISIBLE_CORES is not set"),
            std::string::npos);
  EXPECT_NE(error_of("", "0", "64").find("NEURON_RT_VISIBLE_CORES is not set"), std::string::npos);
  EXPECT_NE(error_of("0-63", std::nullopt, "64").find("LOCAL_RANK is not set"), std::string::npos);
  EXPECT_NE(error_of("0-63", "0", std::nullopt).find("LOCAL_WORLD_SIZE is not set"),
            std::string::npos);
  EXPECT_NE(error_of("0-63", "-1", "64").find("LOCAL_RANK '-1'"), std::string::npos);
  EXPECT_NE(error_of("0-63", "x", "64").find("LOCAL_RANK 'x'"), std::string::npos);
  EXPECT_NE(error_of("0-63", "64", "64").find("LOCAL_RANK 64 is not below"), std::string::npos);
  EXPECT_NE(error_of("zero", "0", "1").find("NEURON_RT_VISIBLE_CORES"), std::string::npos);
}

}  // namespace
