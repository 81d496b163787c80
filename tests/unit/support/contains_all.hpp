#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace trn::test {

// Expects every one of `parts` in `text` (a message, a report, a child's output), each checked
// and reported on its own, so that a test lists what a text must say without one line each.
inline void expect_contains_all(const std::string& text,
                                std::initializer_list<std::string_view> parts) {
  for (const auto part : parts) EXPECT_THAT(text, testing::HasSubstr(std::string(part)));
}

}  // namespace trn::test
