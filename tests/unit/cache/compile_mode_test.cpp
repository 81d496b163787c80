#include "trn/cache/compile_mode.hpp"

#include <gtest/gtest.h>

namespace trn::cache {
namespace {

constexpr bool neuron_nodes = true;
constexpr bool cpu_nodes = false;
constexpr bool kPerTask = false;  // torchneuron_workers: the profile's worker_cores is per-task
constexpr bool kTorchNeuronWorkers = true;

TEST(CompileMode, TheTrn1PathKeepsNeuronParallelCompile) {
  EXPECT_EQ(compile_mode_of({"python3", "-m", "trn_trainer", "pretrain", "--device", "xla"},
                            neuron_nodes, kPerTask),
            CompileMode::kNeuronParallelCompile);
  EXPECT_EQ(compile_mode_of({"python3", "-m", "trn_trainer", "pretrain-lm", "--model", "tiny"},
                            neuron_nodes, kPerTask),
            CompileMode::kNeuronParallelCompile);
  // On CPU nodes too: there neuron_parallel_compile is absent, and the phase says so.
  EXPECT_EQ(compile_mode_of({"trainer", "--device", "cpu"}, cpu_nodes, kPerTask),
            CompileMode::kNeuronParallelCompile);
  EXPECT_EQ(compile_mode_of({}, neuron_nodes, kPerTask), CompileMode::kNeuronParallelCompile);
}

TEST(CompileMode, TheNativePathOnNeuronNodesWarmsUp) {
  EXPECT_EQ(compile_mode_of({"python3", "-m", "trn_trainer", "pretrain-lm", "--native"},
                            neuron_nodes, kPerTask),
            CompileMode::kWarmUp);
  EXPECT_EQ(compile_mode_of({"trainer", "--native", "--device", "auto"}, neuron_nodes, kPerTask),
            CompileMode::kWarmUp);
  // --device neuron implies --native, and asks for Neuron whatever the nodes are.
  EXPECT_EQ(compile_mode_of({"trainer", "--device", "neuron"}, neuron_nodes, kPerTask),
            CompileMode::kWarmUp);
  EXPECT_EQ(compile_mode_of({"trainer", "--device=neuron"}, cpu_nodes, kPerTask),
            CompileMode::kWarmUp);
}

TEST(CompileMode, TheNativePathOnCpuOrCudaCompilesNothingAhead) {
  EXPECT_EQ(compile_mode_of({"trainer", "--native", "--device", "cpu"}, neuron_nodes, kPerTask),
            CompileMode::kNone);
  EXPECT_EQ(compile_mode_of({"trainer", "--device=cuda", "--native"}, neuron_nodes, kPerTask),
            CompileMode::kNone);
  // The default device on nodes without Neuron devices is the CPU or a GPU.
  EXPECT_EQ(compile_mode_of({"trainer", "--native"}, cpu_nodes, kPerTask), CompileMode::kNone);
  EXPECT_EQ(compile_mode_of({"trainer", "--native", "--device", "auto"}, cpu_nodes, kPerTask),
            CompileMode::kNone);
}

// TorchTitan's trainer names no option of ours: its profile's worker_cores says its workers are
// TorchNeuron's, which neuron_parallel_compile (torch-xla's) cannot compile for.
TEST(CompileMode, TorchNeuronWorkersWarmUpWhateverTheirCommand) {
  const std::vector<std::string> titan = {"python3", "-m", "torchtitan.train", "--module", "m"};
  EXPECT_EQ(compile_mode_of(titan, neuron_nodes, kTorchNeuronWorkers), CompileMode::kWarmUp);
  EXPECT_EQ(compile_mode_of(titan, neuron_nodes, kPerTask), CompileMode::kNeuronParallelCompile);
  EXPECT_EQ(compile_mode_of({"trainer", "--native"}, cpu_nodes, kTorchNeuronWorkers),
            CompileMode::kNone);
}

TEST(CompileMode, Names) {
  EXPECT_EQ(to_string(CompileMode::kWarmUp), "warm-up");
  EXPECT_EQ(to_string(CompileMode::kNeuronParallelCompile), "neuron_parallel_compile");
  EXPECT_EQ(to_string(CompileMode::kNone), "none");
}

}  // namespace
}  // namespace trn::cache
