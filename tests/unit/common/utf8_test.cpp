#include "trn/common/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using trn::first_invalid_utf8;

TEST(Utf8, WellFormedTextIsAccepted) {
  EXPECT_EQ(first_invalid_utf8(""), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("description: BERT \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80"),
            std::nullopt);
}

TEST(Utf8, TheFirstBadByteIsNamed) {
  EXPECT_EQ(first_invalid_utf8("ab\xff"), 2u);
  EXPECT_EQ(first_invalid_utf8("a\xc3"), 1u);                // cut off
  EXPECT_EQ(first_invalid_utf8("\xc0\xaf"), 0u);             // overlong '/'
  EXPECT_EQ(first_invalid_utf8("x\xe0\x80\xaf"), 1u);        // overlong, 3 bytes
  EXPECT_EQ(first_invalid_utf8("\xed\xa0\x80"), 0u);         // a surrogate
  EXPECT_EQ(first_invalid_utf8("ok \xf4\x90\x80\x80"), 3u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xe2\x82\x41"), 0u);         // a continuation missing
}

}  // namespace
