#include "trn/cache/units.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trn/cache/compiler_version.hpp"
#include "trn/cache/layout.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {
namespace {

TEST(ParseSize, UnitsAreBinary) {
  EXPECT_EQ(parse_size("1024", "--max-size"), 1024U);
  EXPECT_EQ(parse_size("512K", "--max-size"), 512U * 1024);
  EXPECT_EQ(parse_size("500M", "--max-size"), 500ULL << 20);
  EXPECT_EQ(parse_size("1.5G", "--max-size"), 3ULL << 29);
  EXPECT_EQ(parse_size("10GiB", "--max-size"), 10ULL << 30);
  EXPECT_EQ(parse_size("10gb", "--max-size"), 10ULL << 30);
  EXPECT_EQ(parse_size("2T", "--max-size"), 2ULL << 40);
  EXPECT_EQ(parse_size("0", "--max-size"), 0U);
}

TEST(ParseSize, BadInputNamesTheOption) {
  for (const char* bad : {"", "G", "-1G", "10X", "1.2.3G", "ten"}) {
    try {
      parse_size(bad, "--max-size");
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("--max-size '" + std::string(bad) + "'"));
    }
  }
}

TEST(ParseAge, Units) {
  EXPECT_EQ(parse_age("90", "--older-than").count(), 90);
  EXPECT_EQ(parse_age("90s", "--older-than").count(), 90);
  EXPECT_EQ(parse_age("30m", "--older-than").count(), 1800);
  EXPECT_EQ(parse_age("1h", "--older-than").count(), 3600);
  EXPECT_EQ(parse_age("1.5h", "--older-than").count(), 5400);
  EXPECT_EQ(parse_age("7d", "--older-than").count(), 7 * 86400);
  EXPECT_EQ(parse_age("2w", "--older-than").count(), 14 * 86400);
  EXPECT_THROW(parse_age("1y", "--older-than"), Error);
  EXPECT_THROW(parse_age("h", "--older-than"), Error);
}

TEST(ParseAge, OverflowingAgesAreErrors) {
  // An age so large that now - age wraps would select every entry (or every fresh lock).
  EXPECT_EQ(parse_age("36500d", "--older-than").count(), 36500LL * 86400);
  const std::string beyond_double = "1" + std::string(400, '0') + "s";
  for (const std::string& huge : {std::string("36501d"), std::string("106751991167301d"),
                                  std::string("9999999999999999999s"), beyond_double}) {
    try {
      parse_age(huge, "--older-than");
      FAIL() << huge;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("--older-than '" + huge + "'"));
      EXPECT_THAT(e.what(), ::testing::HasSubstr("at most 36500d"));
    }
  }
}

TEST(ParseSize, OverflowingSizesAreErrors) {
  EXPECT_EQ(parse_size("1024T", "--max-size"), 1ULL << 50);
  for (const char* huge : {"1025T", "99999999999999999999", "18446744073709551616"}) {
    try {
      parse_size(huge, "--max-size");
      FAIL() << huge;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("--max-size '" + std::string(huge) + "'"));
      EXPECT_THAT(e.what(), ::testing::HasSubstr("at most 1024T"));
    }
  }
}

TEST(FormatBytes, Readable) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(1ULL << 30), "1.0 GiB");
  EXPECT_EQ(format_bytes(300ULL << 20), "300 MiB");
}

TEST(CompilerCacheRoot, AsTheCompilerPicksIt) {
  EXPECT_EQ(compiler_cache_root(std::nullopt, std::nullopt), "/var/tmp/neuron-compile-cache");
  EXPECT_EQ(compiler_cache_root(std::string(""), std::string("")), "/var/tmp/neuron-compile-cache");
  EXPECT_EQ(compiler_cache_root(std::nullopt, std::string("/fsx/cache")), "/fsx/cache");
  EXPECT_EQ(compiler_cache_root(std::nullopt, std::string("file:///fsx/cache")), "/fsx/cache");
  EXPECT_EQ(compiler_cache_root(std::string("--model-type transformer --cache_dir=/local/c"),
                                std::string("/fsx/cache")),
            "/local/c");
  EXPECT_EQ(compiler_cache_root(std::string("--cache_dir /local/d -O1"), std::nullopt), "/local/d");
  EXPECT_EQ(compiler_cache_root(std::string("-O1"), std::string("/fsx/cache")), "/fsx/cache");
  EXPECT_THROW(compiler_cache_root(std::nullopt, std::string("s3://bucket/cache")), Error);
}

TEST(Layout, Names) {
  EXPECT_TRUE(is_version_dir_name("neuronxcc-2.14.213.0+013d129b"));
  EXPECT_FALSE(is_version_dir_name("neuronxcc-"));
  EXPECT_FALSE(is_version_dir_name("trn-manifests"));
  EXPECT_TRUE(is_module_dir_name("MODULE_10342337443829457519+d41d8cd9"));
  EXPECT_FALSE(is_module_dir_name("MODULE_"));
  EXPECT_FALSE(is_module_dir_name(".trn-tmp.1.0.host"));
  // Bytes the compiler never writes (found by tests/fuzz: status --json threw on them).
  EXPECT_FALSE(is_version_dir_name("neuronxcc-2.14\xda\xcd.11.213.0"));
  EXPECT_FALSE(is_version_dir_name("neuronxcc-2.14 copy"));
  EXPECT_FALSE(is_module_dir_name("MODULE_1034+d41d\n"));
  EXPECT_TRUE(is_lock_file_name("model.hlo_module.pb.lock"));
  EXPECT_FALSE(is_lock_file_name(".lock"));
}

TEST(CompilerVersion, FromNeuronxCcVersionOutput) {
  EXPECT_EQ(parse_compiler_version("NeuronX Compiler version 2.25.3371.0+f524f7f8\n\n"
                                   "Python version 3.12.13\nHWM version 2.25.0.3371++f524f7f8\n"
                                   "NumPy version 2.4.6\n"),
            "2.25.3371.0+f524f7f8");
  EXPECT_EQ(parse_compiler_version("NeuronX Compiler version 2.14.213.0+013d129b"),
            "2.14.213.0+013d129b");
  EXPECT_FALSE(parse_compiler_version("neuronx-cc: command not found").has_value());
  EXPECT_FALSE(parse_compiler_version("NeuronX Compiler version \n").has_value());
}

}  // namespace
}  // namespace trn::cache
