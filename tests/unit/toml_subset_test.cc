#include "ops/toml_subset.h"

#include <gtest/gtest.h>

namespace engram::ops {
namespace {

TEST(TomlSubset, ParsesTablesNumbersBooleansStringsAndArrays) {
  auto r = ParseTomlSubset(
      "# comment 中文注释\n"
      "top = 1\n"
      "[search]\n"
      "limit = 10  # trailing comment\n"
      "k1 = 0.9\n"
      "big = 5_242_880\n"
      "neg = -2\n"
      "flag = true\n"
      "\n"
      "[scope]\r\n"
      "name = \"知识 \\\"库\\\"\"\n"
      "exclude = [\"04_Archive\", \"00_Inbox\" ]\n"
      "empty = []\n",
      "c.toml");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 9u);
  EXPECT_EQ((*r)[0].table, "");
  EXPECT_EQ((*r)[1].key, "limit");
  EXPECT_EQ((*r)[1].line, 4);
  EXPECT_TRUE((*r)[1].value.is_integer);
  EXPECT_DOUBLE_EQ(std::get<double>((*r)[2].value.value), 0.9);
  EXPECT_FALSE((*r)[2].value.is_integer);
  EXPECT_DOUBLE_EQ(std::get<double>((*r)[3].value.value), 5242880);
  EXPECT_DOUBLE_EQ(std::get<double>((*r)[4].value.value), -2);
  EXPECT_TRUE(std::get<bool>((*r)[5].value.value));
  EXPECT_EQ(std::get<std::string>((*r)[6].value.value), "知识 \"库\"");
  EXPECT_EQ(std::get<std::vector<std::string>>((*r)[7].value.value),
            (std::vector<std::string>{"04_Archive", "00_Inbox"}));
  EXPECT_TRUE(std::get<std::vector<std::string>>((*r)[8].value.value).empty());
}

TEST(TomlSubset, RejectsWhatItDoesNotKnowNamingTheLine) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"[![", "c:1: expected a name"},
      {"\xC4\x8F", "c:1: expected a name"},  // broke toml++ (unreachable code)
      {"[a]\nx = \"open", "c:2: string is not closed"},
      {"[a]\nx = 1\nx = 2", "c:3: x is set twice"},
      {"[a]\n[a]", "c:2: table [a] appears twice"},
      {"[a]\nx = nope", "c:2: 'nope' is not a number"},
      {"[a]\nx 1", "c:2: expected '=' after x"},
      {"[a] junk", "c:1: unexpected text after [a]"},
      {"[a]\nx = [1, 2]", "c:2: expected a \"string\""},
      {"[a]\nx = 1e999", "c:2: '1e999' is not a number"},
      {"bad\xFF", "c: not valid UTF-8 at byte 3"},
  };
  for (const Case& c : cases) {
    auto r = ParseTomlSubset(c.text, "c");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
  }
}

TEST(TomlSubset, EmptyAndCommentOnlyFilesHaveNoEntries) {
  EXPECT_TRUE(ParseTomlSubset("", "c")->empty());
  EXPECT_TRUE(ParseTomlSubset("# only\n\n   # comments\n", "c")->empty());
}

}  // namespace
}  // namespace engram::ops
