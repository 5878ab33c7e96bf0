#include "search/keyword_search.h"

#include <gtest/gtest.h>

#include "search/dated.h"
#include "sync/page_indexer.h"
#include "test_support.h"
#include "engram/store/open_store.h"

namespace engram::search {
namespace {

class KeywordSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.create_if_missing = true;
    engine_ = std::move(OpenSqliteStore(dir_.path() / "engram.db", o)).value();
  }
  void Put(const std::string& path, const std::string& content) {
    auto w = sync::PreparePage(path, content, {});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(engine_->PutPage(*w).ok());
  }
  std::vector<std::string> Slugs(const std::string& query, SearchOptions o = {}) {
    auto r = KeywordSearch(*engine_, query, o);
    EXPECT_TRUE(r.ok()) << query << ": " << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const auto& h : r->results) out.push_back(h.slug);
    }
    return out;
  }
  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST(ChunkDates, DatesWrittenAtTheStartOfLinesInEveryForm) {
  EXPECT_EQ(ChunkDates("- **2024-09-02** | Joined Northwind\n- **2026-03** | Promoted\n"),
            (std::vector<std::string>{"2024-09-02", "2026-03"}));
  EXPECT_EQ(ChunkDates("## 2026年3月12日 董事会\n内容\n### March 5, 2025 sync\n> 7 April 2026: kickoff\n"),
            (std::vector<std::string>{"2026-03-12", "2025-03-05", "2026-04-07"}));
  EXPECT_EQ(ChunkDates("[[2026-05-01]] daily note\n2026/5/1 again\n"), std::vector<std::string>{"2026-05-01"})
      << "each date once";
  // A date inside a sentence, a list number or a plain word is none.
  EXPECT_TRUE(ChunkDates("Alice joined on 2024-09-02.\n1. first step\nMay the team agree\n").empty());
  EXPECT_TRUE(ChunkDates("").empty());
  std::string many;
  for (int d = 1; d <= 28; ++d) many += "- 2026-02-" + std::string(d < 10 ? "0" : "") + std::to_string(d) + " x\n";
  for (int d = 1; d <= 28; ++d) many += "- 2025-02-" + std::string(d < 10 ? "0" : "") + std::to_string(d) + " x\n";
  EXPECT_EQ(ChunkDates(many).size(), kMaxChunkDates);
}

TEST_F(KeywordSearchTest, AQuestionAboutTimePrefersAChunkThatWritesADate) {
  Put("people/profile.md", "Alice joined Northwind Robotics as VP of Partnerships.");
  Put("notes/log.md", "Partner log.\n\n- **2024-09-02** | Alice joined Northwind");
  const std::vector<std::string> plain = Slugs("Alice joined Northwind");
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_EQ(plain[0], "people/profile") << "without a question about time, the best text first";
  auto r = KeywordSearch(*engine_, "When did Alice join Northwind?", {});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->results.size(), 2u);
  EXPECT_EQ(r->results[0].slug, "notes/log") << "the chunk that says when";
  EXPECT_EQ(r->results[0].chunk_dates, std::vector<std::string>{"2024-09-02"});
  EXPECT_TRUE(r->results[1].chunk_dates.empty());
  // The limit still holds, after the dated chunks moved up.
  SearchOptions one;
  one.limit = 1;
  EXPECT_EQ(Slugs("When did Alice join Northwind?", one), std::vector<std::string>{"notes/log"});
}

TEST_F(KeywordSearchTest, AnyWordMayMatchAndMoreMatchesRankHigher) {
  Put("one.md", "the solar panel market");
  Put("two.md", "solar panel efficiency in the desert");
  Put("three.md", "desert plants");
  auto r = Slugs("solar panel desert efficiency");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], "two");
}

TEST_F(KeywordSearchTest, ChineseQueryWithoutSpacesFindsChineseText) {
  Put("a.md", "我们公司正在研究机器学习在中文分词上的应用。");
  Put("b.md", "今天天气很好，我们去公园散步。");
  auto r = Slugs("机器学习");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0], "a");
}

TEST_F(KeywordSearchTest, TraditionalQueryFindsSimplifiedText) {
  Put("a.md", "数据库备份规范：每天凌晨全量备份。");
  Put("b.md", "other text");
  EXPECT_EQ(Slugs("資料庫備份").at(0), "a");
}

TEST_F(KeywordSearchTest, MixedScriptQuery) {
  Put("a.md", "Project Atlas 的试点在苏州仓库上线。");
  Put("b.md", "Project planning notes in English only.");
  EXPECT_EQ(Slugs("Atlas 苏州 试点").at(0), "a");
}

TEST_F(KeywordSearchTest, RequiredAndExcludedWords) {
  Put("a.md", "apple river");
  Put("b.md", "apple stone");
  Put("c.md", "river stone");
  // apple is optional, river required: a (both) ranks above c (river only).
  EXPECT_EQ(Slugs("apple +river"), (std::vector<std::string>{"a", "c"}));
  auto r = Slugs("apple -stone");
  EXPECT_EQ(r, (std::vector<std::string>{"a"}));
  EXPECT_TRUE(Slugs("+missing apple").empty());
}

TEST_F(KeywordSearchTest, PhrasesMustAppearInOrder) {
  Put("a.md", "reciprocal rank fusion merges lists");
  Put("b.md", "fusion of rank and reciprocal ideas");
  EXPECT_EQ(Slugs("\"reciprocal rank fusion\""), (std::vector<std::string>{"a"}));
  Put("c.md", "我们讨论了机器学习的应用");
  Put("d.md", "学习机器的使用方法");
  EXPECT_EQ(Slugs("\"机器学习\""), (std::vector<std::string>{"c"}));
  EXPECT_EQ(Slugs("-\"rank fusion\" reciprocal"), (std::vector<std::string>{"b"}));
}

// Regression: filters were refused in keyword mode. A filter narrows every
// arm (chunks, titles, exact names) and the top k is the top k of the pages
// that pass, however many stronger pages fail it.
TEST_F(KeywordSearchTest, FiltersNarrowEveryArmAndKeepTheTopK) {
  for (int i = 0; i < 30; ++i) Put("notes/n" + std::to_string(i) + ".md", "okapi okapi okapi okapi notes " + std::to_string(i));
  Put("people/okapi.md", "---\ntitle: Okapi\n---\nan okapi once");
  Put("people/ann.md", "---\ntitle: Ann\n---\nAnn saw an okapi");
  Put("people/bob.md", "---\ntitle: Bob\n---\nBob reads");
  SearchOptions o;
  o.limit = 2;
  o.filter.folder = "people/";
  auto r = Slugs("okapi", o);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], "people/okapi");  // the exact name, inside the filter
  EXPECT_EQ(r[1], "people/ann");
  o.filter.folder = "notes/";
  for (const auto& slug : Slugs("okapi", o)) EXPECT_EQ(slug.rfind("notes/", 0), 0u) << slug;
  o.filter = {};
  o.filter.types = {"person"};
  EXPECT_EQ(Slugs("okapi", o).size(), 2u);
  o.filter = {};
  o.filter.since = "2999-01-01";
  EXPECT_TRUE(Slugs("okapi", o).empty());
}

// Regression: "-alpha" alone said "no searchable words"; it now says how to
// search for the word itself, and that way finds it.
TEST_F(KeywordSearchTest, AQueryOfExclusionsOnlySaysHowToSearchTheWord) {
  Put("a.md", "alpha release notes");
  Put("b.md", "beta release notes");
  auto r = KeywordSearch(*engine_, "-alpha", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("quote it"), std::string::npos) << r.status().message();
  EXPECT_EQ(Slugs("\"-alpha\""), std::vector<std::string>{"a"});
  EXPECT_EQ(Slugs("release -alpha"), std::vector<std::string>{"b"});
}

// Regression (real vault): "MCP 是什么" missed every MCP note because the
// frame's characters, common in Chinese notes, outweighed "MCP".
TEST_F(KeywordSearchTest, AQuestionFrameDoesNotOutweighItsSubject) {
  // A Chinese vault where MCP has ten notes and the frame's characters
  // stand together in two unrelated ones.
  for (int i = 0; i < 10; ++i) {
    Put("mcp/n" + std::to_string(i) + ".md", "MCP 服务器笔记，第 " + std::to_string(i) + " 部分：给智能体的工具。\n");
  }
  for (int i = 0; i < 30; ++i) {
    Put("c/n" + std::to_string(i) + ".md", "这是第 " + std::to_string(i) + " 篇笔记，内容是嵌入式开发和寄存器。\n");
  }
  Put("other/a.md", "这是什么东西？\n");
  Put("other/b.md", "什么是指针\n");
  for (const char* q : {"MCP 是什么", "MCP是什么", "什么是 MCP", "what is MCP"}) {
    auto r = Slugs(q);
    ASSERT_FALSE(r.empty()) << q;
    EXPECT_EQ(r[0].rfind("mcp/", 0), 0u) << q << ": " << r[0];
  }
  // A frame alone is still a query; a page's name with a frame finds the page first.
  EXPECT_FALSE(Slugs("是什么").empty());
  Put("concepts/指针.md", "# 指针\n指针保存地址。\n");
  EXPECT_EQ(Slugs("指针是什么").at(0), "concepts/指针");
  EXPECT_EQ(Slugs("什么是指针？").at(0), "concepts/指针");
}

TEST_F(KeywordSearchTest, PrivatePagesAreHiddenUnlessAllowed) {
  Put("a.md", "---\nvisibility: private\n---\nsecret plans");
  SearchOptions remote;
  remote.include_private = false;
  EXPECT_TRUE(Slugs("secret", remote).empty());
  SearchOptions local;
  local.include_private = true;
  EXPECT_EQ(Slugs("secret", local).size(), 1u);
}

TEST_F(KeywordSearchTest, TitleAndAliasArmFindsPagesByName) {
  Put("people/zhang-san.md", "---\ntitle: 张三\naliases: [Zhang San]\n---\nFounder of a company.");
  Put("notes/x.md", "Zhang mentioned something. San Francisco trip.");
  auto r = Slugs("Zhang San");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0], "people/zhang-san");
}

// Regression: an entity question ("who is Zhang San") did not put the named
// page first in keyword mode; a company page mentioning the name won.
TEST_F(KeywordSearchTest, EntityQuestionNamingAPagePutsItFirst) {
  Put("people/zhang-san.md", "---\ntitle: 张三\naliases: [Zhang San]\n---\n张三是创始人。");
  Put("companies/acme.md", "Acme. Zhang San is who founded it; Zhang San leads it. Zhang San, San, Zhang.");
  for (const char* q : {"who is Zhang San", "Who is Zhang San?", "tell me about Zhang San", "谁是张三", "张三是谁"}) {
    auto r = Slugs(q);
    ASSERT_FALSE(r.empty()) << q;
    EXPECT_EQ(r[0], "people/zhang-san") << q;
  }
}

TEST_F(KeywordSearchTest, ReturnsTheBestChunkWithLines) {
  std::string body = "# Title\n\n";
  for (int i = 0; i < 400; ++i) {
    body += "filler";
    body += std::to_string(i);
    body += ' ';
  }
  body += "\n\nThe needle paragraph is here.\n";
  Put("long.md", body);
  auto r = KeywordSearch(*engine_, "needle", {});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->results.size(), 1u);
  EXPECT_NE(r->results[0].text.find("needle"), std::string::npos);
  EXPECT_EQ(r->results[0].line_end, 5);
  EXPECT_EQ(r->results[0].chunk_source, ChunkSource::kCompiledTruth);
}

TEST_F(KeywordSearchTest, EmptyAndStopWordQueriesAreClearErrors) {
  Put("a.md", "text");
  for (const char* q : {"", "   ", "the of and", "?!,.", "-text"}) {
    auto r = KeywordSearch(*engine_, q, {});
    ASSERT_FALSE(r.ok()) << q;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_FALSE(KeywordSearch(*engine_, "bad\xFF", {}).ok());
}

TEST_F(KeywordSearchTest, HugeQueryStillAnswers) {
  Put("a.md", "needle");
  std::string q;
  for (int i = 0; i < 2000; ++i) {
    q += "word";
    q += std::to_string(i);
    q += ' ';
  }
  q += "needle";
  EXPECT_EQ(Slugs(q).at(0), "a");
}

TEST_F(KeywordSearchTest, SameQuerySameOrder) {
  for (int i = 0; i < 30; ++i) {
    std::string path = "p";
    path += std::to_string(i);
    path += ".md";
    Put(path, "same words here");
  }
  EXPECT_EQ(Slugs("same words"), Slugs("same words"));
}

}  // namespace
}  // namespace engram::search

namespace engram::search {
namespace {

// Regression (red team): a 10 KB query of one quoted phrase repeated cost
// seconds of CPU; repeats are now merged, and the query's size is bounded
// before any list is read.
TEST(KeywordQueryLimits, RepeatedPhrasesCostOnePhraseAndLimitsAreNamed) {
  testing::TempDir dir;
  EngineOptions o;
  o.create_if_missing = true;
  auto engine = std::move(OpenSqliteStore(dir.path() / "engram.db", o)).value();
  for (int i = 0; i < 50; ++i) {
    const std::string n = std::to_string(i);
    auto w = sync::PreparePage("p" + n + ".md", "the quick brown fox jumps over the lazy dog number " + n + "\n", {});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(engine->PutPage(*w).ok());
  }
  std::string repeated;
  while (repeated.size() < 10000) repeated += "\"quick brown fox\" ";
  auto once = KeywordSearch(*engine, "\"quick brown fox\"", {});
  auto many = KeywordSearch(*engine, repeated, {});
  ASSERT_TRUE(once.ok() && many.ok()) << many.status().ToString();
  ASSERT_EQ(once->results.size(), many->results.size());
  for (size_t i = 0; i < once->results.size(); ++i) EXPECT_EQ(once->results[i].slug, many->results[i].slug);

  std::string phrases;
  for (size_t i = 0; i <= kMaxQueryPhrases; ++i) phrases += "\"fox w" + std::to_string(i) + "\" ";
  auto refused = KeywordSearch(*engine, phrases, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("phrases"), std::string::npos) << refused.status().message();

  std::string exclusions = "fox";
  for (size_t i = 0; i <= kMaxExcludedGroups; ++i) exclusions += " -x" + std::to_string(i);
  EXPECT_EQ(KeywordSearch(*engine, exclusions, {}).status().code(), StatusCode::kInvalidArgument);

}

}  // namespace
}  // namespace engram::search
