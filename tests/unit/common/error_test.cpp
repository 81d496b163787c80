#include "trn/common/error.hpp"

#include <gtest/gtest.h>

TEST(Error, CarriesTheUserFacingMessage) {
  try {
    throw trn::Error("fsroot '/nope' does not exist: pass an existing directory");
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(), "fsroot '/nope' does not exist: pass an existing directory");
  }
}
