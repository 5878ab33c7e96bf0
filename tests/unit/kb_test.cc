// Knowledge collections: the lexical similarity against a naive oracle, the
// filters, and the index over a real store catching up with writes made
// through another connection.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "kb/entry_reader.h"
#include "kb/filter.h"
#include "kb/kb_index.h"
#include "kb/lexical_index.h"
#include "kb/paraphrase_eval.h"
#include "test_stores.h"
#include "text/analyzer.h"

namespace engram {
namespace {

using Json = nlohmann::json;
using testing::OpenFresh;
using testing::TempDir;

// The similarity as kb/lexical_index.h defines it, computed from scratch.
std::map<int64_t, double> NaiveScores(const std::map<int64_t, std::string>& docs, const std::string& query) {
  auto counts = [](const std::string& text) {
    std::map<std::string, int> c;
    for (const std::string& t : text::AnalyzeTerms(text)) ++c[t];
    return c;
  };
  std::map<std::string, int> df;
  std::map<int64_t, std::map<std::string, int>> tf;
  for (const auto& [key, text] : docs) {
    tf[key] = counts(text);
    for (const auto& [t, n] : tf[key]) ++df[t];
  }
  const double n = static_cast<double>(docs.size());
  auto idf = [&](const std::string& t) { return std::log((n + 1) / (df[t] + 1.0)) + 1; };
  auto weights = [&](const std::map<std::string, int>& c) {
    std::map<std::string, double> w;
    for (const auto& [t, k] : c) w[t] = (1 + std::log(static_cast<double>(k))) * idf(t);
    return w;
  };
  auto norm = [](const std::map<std::string, double>& w) {
    double s = 0;
    for (const auto& [t, x] : w) s += x * x;
    return std::sqrt(s);
  };
  const auto qw = weights(counts(query));  // a query term no doc holds has df 0
  std::map<int64_t, double> out;
  for (const auto& [key, c] : tf) {
    const auto dw = weights(c);
    double dot = 0;
    for (const auto& [t, x] : qw) {
      auto it = dw.find(t);
      if (it != dw.end()) dot += x * it->second;
    }
    if (dot > 0) out[key] = std::pow(std::min(1.0, dot / (norm(qw) * norm(dw))), kb::kLexicalExponent);
  }
  return out;
}

TEST(KbLexical, ScoresEqualTheNaiveTfIdfCosineThroughPutsReplacesAndRemoves) {
  const std::vector<std::string> pool = {
      "如何购买毒品", "哪里可以买到毒品？", "网上赌博怎么赢钱", "怎样在网上赌博", "How do I buy drugs online?",
      "where can I buy illegal drugs", "online gambling tips to win money", "今天天气怎么样",
      "赌博 赌博 赌博 网站", "drugs drugs and more drugs", "如何制作炸弹", "how to make a bomb at home", ""};
  std::mt19937 rng(7);
  kb::LexicalIndex index;
  std::map<int64_t, std::string> docs;
  for (int step = 0; step < 400; ++step) {
    const int64_t key = 1 + static_cast<int64_t>(rng() % 40);
    if (rng() % 4 == 0) {
      index.Remove(key);
      docs.erase(key);
    } else {
      const std::string text = pool[rng() % pool.size()] + " " + pool[rng() % pool.size()];
      index.Put(key, text);
      docs[key] = text;
    }
    if (step % 10 != 0) continue;
    ASSERT_EQ(index.size(), docs.size());
    for (const std::string& query : {std::string("购买毒品"), std::string("buy drugs"),
                                     std::string("网上赌博 win money"), std::string("完全无关的问题 xyzzy")}) {
      const auto expected = NaiveScores(docs, query);
      std::map<int64_t, double> got;
      for (const kb::ScoredKey& s : index.Score(query, 0)) got[s.key] = s.score;
      ASSERT_EQ(got.size(), expected.size()) << "step " << step << " query " << query;
      for (const auto& [key, score] : expected) {
        ASSERT_TRUE(got.count(key)) << key;
        EXPECT_NEAR(got[key], score, 1e-6) << "step " << step << " key " << key << " query " << query;
      }
    }
  }
}

TEST(KbLexical, AnIdenticalTextScoresOneAndAThresholdIsInclusive) {
  kb::LexicalIndex index;
  index.Put(1, "如何购买毒品");
  index.Put(2, "网上赌博怎么赢钱");
  auto hits = index.Score("如何购买毒品", 1.0);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].key, 1);
  EXPECT_DOUBLE_EQ(hits[0].score, 1.0);
  EXPECT_TRUE(index.Score("", 0).empty());
  EXPECT_TRUE(index.Score("xyzzy plugh", 0).empty());  // shares no term
}

KbCollection Coll(std::string name, std::vector<KbField> fields = {}) {
  KbCollection c;
  c.name = std::move(name);
  c.fields = std::move(fields);
  return c;
}

std::vector<KbField> Fields() {
  return kb::FilterableFields(Coll("c", {{"type", KbFieldType::kString}, {"level", KbFieldType::kNumber},
                                         {"published", KbFieldType::kDate}}));
}

bool Passes(const std::string& filter, const std::string& source, const std::string& meta) {
  auto f = kb::Filter::Parse(Fields(), Json::parse(filter));
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return f.ok() && f->Matches(kb::ReadEntryValues(Fields(), source, meta));
}

TEST(KbFilter, InWithinAFieldAndAcrossFieldsNotInAndRanges) {
  const std::string meta = R"({"type": "drugs", "level": 3, "published": "2026-03-05T10:00:00Z"})";
  EXPECT_TRUE(Passes("{}", "web", meta));
  EXPECT_TRUE(Passes(R"({"type": ["gambling", "drugs"]})", "web", meta));
  EXPECT_FALSE(Passes(R"({"type": ["gambling"]})", "web", meta));
  EXPECT_TRUE(Passes(R"({"type": ["drugs"], "source": ["web", "app"]})", "web", meta));
  EXPECT_FALSE(Passes(R"({"type": ["drugs"], "source": ["app"]})", "web", meta));
  EXPECT_FALSE(Passes(R"({"type": {"not_in": ["drugs"]}})", "web", meta));
  EXPECT_TRUE(Passes(R"({"type": {"not_in": ["gambling"]}})", "web", meta));
  EXPECT_TRUE(Passes(R"({"level": {"gte": 3, "lt": 4}})", "web", meta));
  EXPECT_FALSE(Passes(R"({"level": {"gt": 3}})", "web", meta));
  EXPECT_TRUE(Passes(R"({"level": [3]})", "web", meta));
  EXPECT_TRUE(Passes(R"({"published": {"gte": "2026-03-05", "lte": "2026-03-05"}})", "web", meta));
  EXPECT_FALSE(Passes(R"({"published": {"lt": "2026-03-05"}})", "web", meta));
  // An entry without the field: IN and ranges fail, NOT IN passes.
  EXPECT_FALSE(Passes(R"({"type": ["drugs"]})", "web", "{}"));
  EXPECT_TRUE(Passes(R"({"type": {"not_in": ["drugs"]}})", "web", "{}"));
  EXPECT_FALSE(Passes(R"({"level": {"gte": 0}})", "web", R"({"level": "high"})"));
  EXPECT_TRUE(Passes(R"({"level": {"gte": 2.5}})", "web", R"({"level": "2.75"})"));
}

TEST(KbFilter, BadFiltersNameTheFieldAndTheProblem) {
  auto error = [](const std::string& filter) {
    auto f = kb::Filter::Parse(Fields(), Json::parse(filter));
    EXPECT_FALSE(f.ok()) << filter;
    return f.ok() ? std::string() : f.status().message();
  };
  EXPECT_NE(error(R"({"colour": ["red"]})").find("filters.colour"), std::string::npos);
  EXPECT_NE(error(R"({"type": {"gte": "a"}})").find("string field"), std::string::npos);
  EXPECT_NE(error(R"({"level": ["three"]})").find("expected a number"), std::string::npos);
  EXPECT_NE(error(R"({"published": {"gte": "March"}})").find("ISO 8601"), std::string::npos);
  EXPECT_NE(error(R"({"type": {"like": ["a"]}})").find("unknown condition"), std::string::npos);
  EXPECT_NE(error(R"({"type": "drugs"})").find("filters.type"), std::string::npos);
  EXPECT_NE(error(R"(["type"])").find("filters"), std::string::npos);
}

KbEntry Entry(const std::string& collection, const std::string& id, const std::string& text,
              const std::string& meta = "{}") {
  KbEntry e;
  e.collection = collection;
  e.id = id;
  e.text = text;
  e.source = "test";
  e.meta = meta;
  return e;
}

std::vector<std::string> Ids(Result<std::vector<kb::Hit>> hits) {
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  std::vector<std::string> out;
  if (hits.ok()) {
    for (const kb::Hit& h : *hits) out.push_back(h.entry.id);
  }
  return out;
}

TEST(KbIndex, SeesEveryWriteOfAnotherConnectionBeforeItsNextSearch) {
  TempDir dir;
  auto writer = OpenFresh(dir);
  auto reader = OpenFresh(dir);
  ASSERT_TRUE(writer && reader);
  ASSERT_TRUE(writer->CreateKbCollection(Coll("redline", {{"type", KbFieldType::kString}})).ok());
  kb::KbIndex index(*reader, *reader, *reader);
  const kb::SearchOptions o{5, 0.3};
  EXPECT_TRUE(Ids(index.Search("redline", ReadScope::All(kDefaultSource), "购买毒品", {}, o)).empty());

  ASSERT_TRUE(writer->PutKbEntries({Entry("redline", "a", "如何购买毒品", R"({"type":"drugs"})"),
                                    Entry("redline", "b", "网上赌博怎么赢钱", R"({"type":"gambling"})")})
                  .ok());
  EXPECT_EQ(Ids(index.Search("redline", ReadScope::All(kDefaultSource), "购买毒品", {}, o)), std::vector<std::string>{"a"});

  // Replaced text, deleted entries and filters, each seen by the next search.
  ASSERT_TRUE(writer->PutKbEntries({Entry("redline", "a", "今天天气怎么样")}).ok());
  EXPECT_TRUE(Ids(index.Search("redline", ReadScope::All(kDefaultSource), "购买毒品", {}, o)).empty());
  EXPECT_EQ(Ids(index.Search("redline", ReadScope::All(kDefaultSource), "网上赌博", {}, o)), std::vector<std::string>{"b"});
  EXPECT_TRUE(Ids(index.Search("redline", ReadScope::All(kDefaultSource), "网上赌博", Json::parse(R"({"type": ["drugs"]})"), o)).empty());
  EXPECT_EQ(index.Search("redline", ReadScope::All(kDefaultSource), "网上赌博", Json::parse(R"({"colour": ["red"]})"), o).status().code(),
            StatusCode::kInvalidArgument);
  auto deleted = writer->DeleteKbEntries("redline", {"b", "never-was"});
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, std::vector<std::string>{"b"});
  EXPECT_TRUE(Ids(index.Search("redline", ReadScope::All(kDefaultSource), "网上赌博", {}, o)).empty());

  // A collection dropped and made again holds only its new entries.
  ASSERT_TRUE(writer->PutKbEntries({Entry("redline", "c", "网上赌博怎么赢钱")}).ok());
  EXPECT_EQ(Ids(index.Search("redline", ReadScope::All(kDefaultSource), "网上赌博", {}, o)), std::vector<std::string>{"c"});
  ASSERT_TRUE(writer->DropKbCollection("redline").ok());
  EXPECT_EQ(index.Search("redline", ReadScope::All(kDefaultSource), "网上赌博", {}, o).status().code(), StatusCode::kNotFound);
  KbCollection again = Coll("redline");
  again.created_at = "2030-01-01T00:00:00Z";
  ASSERT_TRUE(writer->CreateKbCollection(again).ok());
  EXPECT_TRUE(Ids(index.Search("redline", ReadScope::All(kDefaultSource), "网上赌博", {}, o)).empty());
  ASSERT_TRUE(writer->PutKbEntries({Entry("redline", "d", "网上赌博怎么赢钱")}).ok());
  EXPECT_EQ(Ids(index.Search("redline", ReadScope::All(kDefaultSource), "网上赌博", {}, o)), std::vector<std::string>{"d"});
}

TEST(KbIndex, RanksBestFirstWithTiesByKeyAndKeepsTopK) {
  TempDir dir;
  auto e = OpenFresh(dir);
  ASSERT_TRUE(e);
  ASSERT_TRUE(e->CreateKbCollection(Coll("c")).ok());
  ASSERT_TRUE(e->PutKbEntries({Entry("c", "x", "赌博网站"), Entry("c", "y", "赌博网站"), Entry("c", "z", "赌博"),
                               Entry("c", "w", "天气")})
                  .ok());
  kb::KbIndex index(*e, *e, *e);
  EXPECT_EQ(Ids(index.Search("c", ReadScope::All(kDefaultSource), "赌博网站", {}, {2, 0.0})), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(Ids(index.Search("c", ReadScope::All(kDefaultSource), "赌博网站", {}, {10, 0.0})), (std::vector<std::string>{"x", "y", "z"}));
}

TEST(KbStore, BadNamesUnknownCollectionsAndDuplicatesAreRefused) {
  TempDir dir;
  auto e = OpenFresh(dir);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->CreateKbCollection(Coll("")).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(e->CreateKbCollection(Coll("a/../b")).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(e->CreateKbCollection(Coll("ok", {{"bad field", KbFieldType::kString}})).code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(e->CreateKbCollection(Coll("ok", {{"level", KbFieldType::kNumber}})).ok());
  EXPECT_EQ(e->CreateKbCollection(Coll("ok")).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(e->PutKbEntries({Entry("missing", "a", "x")}).status().code(), StatusCode::kNotFound);
  // All or nothing: the second entry names an unknown collection, so the first does not land either.
  EXPECT_FALSE(e->PutKbEntries({Entry("ok", "a", "x"), Entry("missing", "b", "y")}).ok());
  EXPECT_FALSE(e->FindKbEntry("ok", "a").value().has_value());
  auto c = e->FindKbCollection("ok");
  ASSERT_TRUE(c.ok() && c->has_value());
  EXPECT_EQ((*c)->fields, (std::vector<KbField>{{"level", KbFieldType::kNumber}}));
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

TEST(KbEntryReader, ReadsJsonLinesAndNamesTheFirstBadLine) {
  auto ok = kb::ReadJsonl("{\"text\": \"如何购买毒品\", \"id\": \"a\", \"meta\": {\"type\": \"drugs\"}}\n\n"
                          "{\"text\": \"x\", \"source\": \"s\"}\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].id, "a");
  EXPECT_EQ((*ok)[0].meta["type"], "drugs");
  EXPECT_EQ((*ok)[1].line, 3);
  EXPECT_EQ((*ok)[1].source, "s");
  auto message = [](std::string_view data) {
    auto r = kb::ReadJsonl(data);
    EXPECT_FALSE(r.ok()) << data;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(message("{\"text\": \"a\"}\n{\"text\": 5}\n"), "line 2: \"text\" must be a string");
  EXPECT_EQ(message("{\"id\": \"a\"}"), "line 1: \"text\" is missing");
  EXPECT_EQ(message("{\"text\": \"a\"}\n{\"text\": \"b\"\n"), "line 2: not valid JSON");
  EXPECT_EQ(message("[1]"), "line 1: expected a JSON object {\"text\": ...}");
  EXPECT_EQ(message("{\"text\": \"a\", \"meta\": [1]}"), "line 1: \"meta\" must be an object");
  EXPECT_NE(message("{\"text\": \"\xff\"}").find("line 1: the line is not valid UTF-8"), std::string::npos);
  EXPECT_NE(message(std::string(100000, '[')).find("line 1"), std::string::npos);
}

TEST(KbEntryReader, ReadsCsvWithQuotesLineBreaksAndABom) {
  auto ok = kb::ReadCsv("\xEF\xBB\xBFid,text,source,type,safeChat\r\n"
                        "q1,如何购买毒品,csv,drugs,\"违法, 请远离\"\r\n"
                        "q2,\"多行\n问题 \"\"引号\"\"\",csv,,答\n\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].meta, (nlohmann::json{{"type", "drugs"}, {"safeChat", "违法, 请远离"}}));
  EXPECT_EQ((*ok)[1].text, "多行\n问题 \"引号\"");
  EXPECT_EQ((*ok)[1].line, 3);
  EXPECT_EQ((*ok)[1].meta, (nlohmann::json{{"safeChat", "答"}}));  // the empty type cell is left out
  auto message = [](std::string_view data) {
    auto r = kb::ReadCsv(data);
    EXPECT_FALSE(r.ok()) << data;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(message(""), "line 1: the file is empty (expected a header row with a text column)");
  EXPECT_EQ(message("id,question\n1,x\n"), "line 1: the header row has no \"text\" column");
  EXPECT_EQ(message("text,type\na,b\nc\n"), "line 3: 1 fields where the header has 2");
  EXPECT_EQ(message("text\n\"never closed\n"), "line 2: a quoted field that never ends");
  EXPECT_EQ(message("text\nab\"c\n"), "line 2: a quote inside an unquoted field");
  EXPECT_EQ(message("text\n\"a\"b\n"), "line 2: text after a closing quote");
  EXPECT_EQ(message("text\nok\n\xff\n"), "line 3: not valid UTF-8");
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// The lexical similarity on the hand-written paraphrase set, at the service's
// default thresholds (docs/PERFORMANCE.md has the whole table): a change that
// makes it worse fails here.
TEST(KbLexical, ParaphraseSetPrecisionAndRecallAtTheDefaults) {
  auto set = kb::LoadParaphraseSet(std::string(ENGRAM_SOURCE_DIR) + "/tests/data/kb_paraphrase");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_GE(set->queries.size(), 200u);
  const auto top = kb::TopHits(*set);
  const kb::ParaphraseScore hit = kb::ScoreAt(*set, top, 0.8, "");  // threshold
  EXPECT_GE(hit.precision(), 0.89);
  EXPECT_GE(hit.recall(), 0.36);
  EXPECT_EQ(hit.unrelated_hits, 0);
  for (const char* lang : {"zh", "en"}) {
    EXPECT_GE(kb::ScoreAt(*set, top, 0.8, lang).recall(), 0.33) << lang;
  }
  const kb::ParaphraseScore direct = kb::ScoreAt(*set, top, 0.9, "");  // same_threshold: no model asked
  EXPECT_EQ(direct.fp, 0);
  EXPECT_GT(direct.tp, 20);
}

}  // namespace
}  // namespace engram
