#include "trn/common/enum_names.hpp"

#include <gtest/gtest.h>

namespace {

enum class Colour { kRed, kGreen, kBlue };

constexpr trn::EnumNames<Colour, 3> colour_names{{
    {Colour::kRed, "red"},
    {Colour::kGreen, "green"},
    {Colour::kBlue, "blue"},
}};

TEST(EnumNames, NamesAndValuesGoBothWays) {
  static_assert(trn::name_of(colour_names, Colour::kGreen) == "green");
  static_assert(trn::value_named(colour_names, "blue") == Colour::kBlue);
  EXPECT_FALSE(trn::value_named(colour_names, "Blue").has_value());
}

TEST(EnumNames, ListsTheChoicesForAMessage) {
  EXPECT_EQ(trn::list_names(colour_names), "red, green or blue");
  constexpr trn::EnumNames<Colour, 2> two{{{Colour::kRed, "red"}, {Colour::kBlue, "blue"}}};
  EXPECT_EQ(trn::list_names(two), "red or blue");
}

TEST(EnumNames, ParseNamesTheInputAndTheChoices) {
  EXPECT_EQ(trn::parse_named(colour_names, "red", "--colour", "a colour"), Colour::kRed);
  try {
    trn::parse_named(colour_names, "pink", "--colour", "a colour");
    FAIL() << "pink was accepted";
  } catch (const trn::Error& e) {
    EXPECT_STREQ(e.what(), "--colour=pink is not a colour: use red, green or blue");
  }
}

}  // namespace
