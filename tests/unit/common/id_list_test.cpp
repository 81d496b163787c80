#include "trn/common/id_list.hpp"

#include <gtest/gtest.h>

#include "trn/common/error.hpp"

using trn::IdList;

TEST(IdList, ParsesKernelListsAndPrintsThemCompactly) {
  const IdList cpus = IdList::parse("64-95,0-31\n", "test");
  EXPECT_EQ(cpus.size(), 64u);
  EXPECT_TRUE(cpus.contains(0));
  EXPECT_TRUE(cpus.contains(95));
  EXPECT_FALSE(cpus.contains(32));
  EXPECT_EQ(cpus.to_string(), "0-31,64-95");
  EXPECT_EQ(IdList::parse("3,1,2,7", "test").to_string(), "1-3,7");
  EXPECT_TRUE(IdList::parse("  \n", "test").empty());
  EXPECT_EQ(IdList::parse("5", "test").to_string(), "5");
}

TEST(IdList, SetOperations) {
  const IdList a = IdList::parse("0-7", "a");
  const IdList b = IdList::parse("4-11", "b");
  EXPECT_EQ(a.intersection(b).to_string(), "4-7");
  EXPECT_EQ(a.united(b).to_string(), "0-11");
  EXPECT_TRUE(a.united(b).contains_all(a));
  EXPECT_FALSE(a.contains_all(b));
  EXPECT_TRUE(a.intersects(b));
  EXPECT_FALSE(a.intersects(IdList::parse("8-9", "c")));
  EXPECT_EQ(IdList::range(4, 3).to_string(), "4-6");
}

TEST(IdList, RejectsGarbageNamingTheInput) {
  for (const char* text : {"0-", "a-b", "3-1", "1,,2", "0-70000", "1 2", "-1"}) {
    try {
      IdList::parse(text, "/x/local_cpulist");
      FAIL() << text;
    } catch (const trn::Error& e) {
      EXPECT_NE(std::string(e.what()).find("/x/local_cpulist"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("expected a list such as"), std::string::npos);
    }
  }
}
