#include "search/query_parser.h"

#include <gtest/gtest.h>

namespace engram::search {
namespace {

using K = QueryClause::Kind;

TEST(QueryParser, SplitsPlainWords) {
  auto c = ParseQuery("  alpha   beta ");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].text, "alpha");
  EXPECT_EQ(c[0].kind, K::kShould);
}

TEST(QueryParser, ReadsOperatorsAndPhrases) {
  auto c = ParseQuery("+must -not \"a phrase\" -\"bad phrase\" +\"needed one\" covid-19");
  ASSERT_EQ(c.size(), 6u);
  EXPECT_EQ(c[0].kind, K::kRequired);
  EXPECT_EQ(c[0].text, "must");
  EXPECT_EQ(c[1].kind, K::kExcluded);
  EXPECT_EQ(c[2].kind, K::kRequired);
  EXPECT_TRUE(c[2].phrase);
  EXPECT_EQ(c[2].text, "a phrase");
  EXPECT_EQ(c[3].kind, K::kExcluded);
  EXPECT_TRUE(c[3].phrase);
  EXPECT_EQ(c[4].kind, K::kRequired);
  EXPECT_EQ(c[5].text, "covid-19");
  EXPECT_EQ(c[5].kind, K::kShould);
}

TEST(QueryParser, UnbalancedQuoteRunsToTheEnd) {
  auto c = ParseQuery("x \"open phrase");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1].text, "open phrase");
  EXPECT_TRUE(c[1].phrase);
}

TEST(QueryParser, IgnoresLoneOperatorsAndEmptyQuotes) {
  EXPECT_TRUE(ParseQuery("+ - \"\"").empty());
  EXPECT_TRUE(ParseQuery("").empty());
}

}  // namespace
}  // namespace engram::search
