#include "text/analyzer.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace engram::text {
namespace {

std::vector<std::string> Terms(std::string_view s) { return AnalyzeTerms(s); }

bool Has(const std::vector<std::string>& v, const std::string& t) {
  return std::find(v.begin(), v.end(), t) != v.end();
}

TEST(Analyzer, LowercasesAndStemsEnglishWords) {
  EXPECT_EQ(Terms("Running Databases QUICKLY"), (std::vector<std::string>{"run", "databas", "quick"}));
}

TEST(Analyzer, DropsStopWordsButKeepsTheirPositions) {
  std::vector<Token> tokens;
  Analyze("bank of the america", &tokens);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0], (Token{"bank", 0}));
  EXPECT_EQ(tokens[1], (Token{"america", 3}));
}

TEST(Analyzer, SplitsChineseIntoBigramsAndUnigramsSharingPositions) {
  std::vector<Token> tokens;
  Analyze("机器学习", &tokens);
  std::vector<Token> want = {{"机器", 0}, {"机", 0}, {"器学", 1}, {"器", 1}, {"学习", 2}, {"学", 2}, {"习", 3}};
  EXPECT_EQ(tokens, want);
}

TEST(Analyzer, QueryWithoutSpacesSharesTermsWithText) {
  auto doc = Terms("我们在研究机器学习和中文分词。");
  for (const auto& t : Terms("机器学习")) EXPECT_TRUE(Has(doc, t)) << t;
}

TEST(Analyzer, FoldsFullWidthToHalfWidth) {
  EXPECT_EQ(Terms("ＡＢＣ１２３"), Terms("abc123"));
  EXPECT_EQ(Terms("Ｈｅｌｌｏ，ｗｏｒｌｄ"), Terms("hello, world"));
}

TEST(Analyzer, FoldsTraditionalToSimplified) {
  EXPECT_EQ(Terms("資料庫"), Terms("资料库"));
  EXPECT_EQ(Terms("機器學習"), Terms("机器学习"));
  EXPECT_EQ(FoldText("臺灣資料"), "台湾资料");
}

TEST(Analyzer, AppliesNfkcToCompatibilityCharacters) {
  EXPECT_EQ(Terms("ﬁle"), Terms("file"));     // ligature
  EXPECT_EQ(Terms("Ⅻ"), Terms("xii"));         // roman numeral
  EXPECT_EQ(Terms("ＭＥＭＯＲＹ"), Terms("memory"));
}

TEST(Analyzer, FoldsCaseBeyondAscii) {
  EXPECT_EQ(Terms("ÉCOLE"), Terms("école"));
  EXPECT_EQ(Terms("STRASSE"), Terms("straße"));
}

TEST(Analyzer, HandlesMixedScriptText) {
  auto terms = Terms("AI模型v2上线");
  EXPECT_TRUE(Has(terms, "ai"));
  EXPECT_TRUE(Has(terms, "模型"));
  EXPECT_TRUE(Has(terms, "v2"));
  EXPECT_TRUE(Has(terms, "上线"));
}

TEST(Analyzer, SplitsJapaneseKanaRuns) {
  auto terms = Terms("データベース");
  EXPECT_TRUE(Has(terms, "デー"));
  EXPECT_TRUE(Has(terms, "ス"));
}

TEST(Analyzer, TreatsInvalidUtf8AsSeparator) {
  std::string bad = "abc\xFF\xFE" "def";
  EXPECT_EQ(Terms(bad), (std::vector<std::string>{"abc", "def"}));
}

TEST(Analyzer, CutsOverlongWords) {
  std::string word(500, 'x');
  auto terms = Terms(word);
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].size(), 64u);
}

TEST(Analyzer, EmptyAndPunctuationOnlyTextGiveNoTerms) {
  EXPECT_TRUE(Terms("").empty());
  EXPECT_TRUE(Terms("  ,.;!?——。，").empty());
  EXPECT_TRUE(Terms("the of and").empty());
}

TEST(Analyzer, IsDeterministic) { EXPECT_EQ(Terms("同样的输入 same input"), Terms("同样的输入 same input")); }

}  // namespace
}  // namespace engram::text
