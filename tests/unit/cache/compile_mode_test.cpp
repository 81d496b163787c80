#include "trn/cache/compile_mode.hpp"

#include <gtest/gtest.h>

namespace trn::cache {
namespace {

TEST(CompileMode, TheTrn1PathKeepsNeuronParallelCompile) {
  EXPECT_EQ(compile_mode_of({"python3", "-m", "trn_trainer", "pretrain", "--device", "xla"}),
            CompileMode::kNeuronParallelCompile);
  EXPECT_EQ(compile_mode_of({"python3", "-m", "trn_trainer", "pretrain-lm", "--model", "tiny"}),
            CompileMode::kNeuronParallelCompile);
  EXPECT_EQ(compile_mode_of({}), CompileMode::kNeuronParallelCompile);
}

TEST(CompileMode, TheNativePathWarmsUp) {
  EXPECT_EQ(compile_mode_of({"python3", "-m", "trn_trainer", "pretrain-lm", "--native"}),
            CompileMode::kWarmUp);
  EXPECT_EQ(compile_mode_of({"trainer", "--native", "--device", "auto"}), CompileMode::kWarmUp);
  // --device neuron implies --native.
  EXPECT_EQ(compile_mode_of({"trainer", "--device", "neuron"}), CompileMode::kWarmUp);
  EXPECT_EQ(compile_mode_of({"trainer", "--device=neuron"}), CompileMode::kWarmUp);
}

TEST(CompileMode, TheNativePathOnCpuOrCudaCompilesNothingAhead) {
  EXPECT_EQ(compile_mode_of({"trainer", "--native", "--device", "cpu"}), CompileMode::kNone);
  EXPECT_EQ(compile_mode_of({"trainer", "--device=cuda", "--native"}), CompileMode::kNone);
  // Without --native, --device cpu is the trn1 trainer's CPU run: unchanged.
  EXPECT_EQ(compile_mode_of({"trainer", "--device", "cpu"}), CompileMode::kNeuronParallelCompile);
}

TEST(CompileMode, Names) {
  EXPECT_EQ(to_string(CompileMode::kWarmUp), "warm-up");
  EXPECT_EQ(to_string(CompileMode::kNeuronParallelCompile), "neuron_parallel_compile");
  EXPECT_EQ(to_string(CompileMode::kNone), "none");
}

}  // namespace
}  // namespace trn::cache
