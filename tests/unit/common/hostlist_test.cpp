#include "trn/common/hostlist.hpp"

#include <gtest/gtest.h>

#include "trn/common/error.hpp"

TEST(FirstHost, TakesTheFirstElementOfEachBracket) {
  EXPECT_EQ(trn::first_host("trn-st-[003-005,9],other1"), "trn-st-003");
  EXPECT_EQ(trn::first_host("node1"), "node1");
  EXPECT_EQ(trn::first_host("node1,node2"), "node1");
  EXPECT_EQ(trn::first_host("node[9,10-12]"), "node9");
  EXPECT_EQ(trn::first_host("rack[1-2]-n[07-08]"), "rack1-n07");
  EXPECT_EQ(trn::first_host("queue1-dy-trn132xlarge-[1-4]"), "queue1-dy-trn132xlarge-1");
  EXPECT_EQ(trn::first_host("a[0012]"), "a0012");
}

TEST(FirstHost, RejectsMalformedLists) {
  for (const char* list :
       {"", ",node1", "node[1-2", "node]1", "node[]", "node[a-b]", "node[[1]]", "node 1"}) {
    EXPECT_THROW(trn::first_host(list), trn::Error) << list;
  }
  try {
    trn::first_host("node[1-2");
  } catch (const trn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("node[1-2"), std::string::npos);
  }
}
