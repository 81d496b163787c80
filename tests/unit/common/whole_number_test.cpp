#include "trn/common/whole_number.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trn/common/error.hpp"

using testing::HasSubstr;

TEST(WholeNumberIn, AcceptsTheRange) {
  EXPECT_EQ(trn::parse_whole_number_in("1", "--nodes", 1, 65536), 1);
  EXPECT_EQ(trn::parse_whole_number_in("+16", "--nodes", 1, 65536), 16);
  EXPECT_EQ(trn::parse_whole_number_in("65536", "--nodes", 1, 65536), 65536);
  EXPECT_EQ(trn::parse_whole_number_in("0", "--node-id", 0, 3), 0);
}

TEST(WholeNumberIn, RefusesWhatWouldWrapNamingTheOptionAndTheRange) {
  for (const char* bad : {"-16", "-1", "0", "65537", "4294967295", "99999999999999999999"}) {
    try {
      trn::parse_whole_number_in(bad, "--nodes", 1, 65536);
      FAIL() << bad;
    } catch (const trn::Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "--nodes '" + std::string(bad) +
                    "' is out of range: give a whole number from 1 to 65536");
    }
  }
  for (const char* bad : {"", "x", "1.5", "1e3", " 1", "1 ", "--1", "+"}) {
    try {
      trn::parse_whole_number_in(bad, "--tasks", 1, 1024);
      FAIL() << bad;
    } catch (const trn::Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("is not a number: give a whole number from 1 to 1024"));
    }
  }
}
