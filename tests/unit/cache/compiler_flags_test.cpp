#include "trn/cache/compiler_flags.hpp"

#include <gtest/gtest.h>

using trn::cache::cache_dir_in_flags;

TEST(CompileCache, FindsCacheDirInCompilerFlags) {
  EXPECT_EQ(cache_dir_in_flags("--model-type=transformer --cache_dir=/fsx/c"), "/fsx/c");
  EXPECT_EQ(cache_dir_in_flags("--cache_dir /fsx/d -O1"), "/fsx/d");
  EXPECT_FALSE(cache_dir_in_flags("--model-type=transformer").has_value());
  EXPECT_FALSE(cache_dir_in_flags("--cache_directory=/x").has_value());
  EXPECT_FALSE(cache_dir_in_flags("").has_value());
}
