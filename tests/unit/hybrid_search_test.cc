// The hybrid pipeline on a real store: private pages stay out of every arm
// for remote callers, filters apply to every arm, the vector arm catches up
// with the vector log, vector mode without vectors is a clear error, and
// fusion leaves the keyword ranking alone when the vector arm carries no
// signal but lets a confident vector arm bring in what keywords miss.
#include <gtest/gtest.h>

#include <random>

#include "embed/embedder.h"
#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "search/dated.h"
#include "search/hybrid.h"
#include "search/keyword_search.h"
#include "search/vector_arm.h"
#include "sync/page_indexer.h"
#include "test_support.h"

namespace engram::search {
namespace {

using testing::TempDir;

class HybridSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.create_if_missing = true;
    auto e = OpenSqliteStore(dir_.path() / "engram.db", o);
    ASSERT_TRUE(e.ok());
    engine_ = std::move(*e);
    Put("concepts/fusion.md", "---\ntitle: Fusion\n---\nReciprocal rank fusion merges keyword and vector lists.\n");
    Put("people/secret.md",
        "---\ntitle: Secret\nvisibility: private\n---\nReciprocal rank fusion notes kept private.\n");
    Put("people/ann.md", "---\ntitle: Ann\n---\nAnn works on rank fusion for search.\n");
    EmbedAll();
  }
  void Put(const std::string& path, const std::string& text) {
    auto w = sync::PreparePage(path, text, {});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(engine_->PutPage(*w).ok());
  }
  void EmbedAll() {
    auto tasks = engine_->ChunksToEmbed(kModel, false, ChunkId(), 1000);
    ASSERT_TRUE(tasks.ok());
    std::vector<std::string> texts;
    for (const auto& t : *tasks) texts.push_back(t.text);
    auto v = hash_->Embed(texts, embed::EmbedKind::kDocument);
    ASSERT_TRUE(v.ok());
    std::vector<EmbeddingWrite> rows;
    for (size_t i = 0; i < tasks->size(); ++i) {
      rows.push_back({(*tasks)[i].chunk_id, kModel, EmbeddingTextHash((*tasks)[i].text),
                      std::vector<float>(v->begin() + i * 64, v->begin() + (i + 1) * 64)});
    }
    ASSERT_TRUE(engine_->StoreEmbeddings(rows).ok());
  }
  // Every chunk gets vector_of(its index among the chunks to embed).
  void EmbedWith(const std::function<std::vector<float>(size_t)>& vector_of) {
    auto tasks = engine_->ChunksToEmbed(kModel, true, ChunkId(), 1000);
    ASSERT_TRUE(tasks.ok());
    std::vector<EmbeddingWrite> rows;
    for (size_t i = 0; i < tasks->size(); ++i) {
      rows.push_back({(*tasks)[i].chunk_id, kModel, EmbeddingTextHash((*tasks)[i].text), vector_of(i)});
    }
    ASSERT_TRUE(engine_->StoreEmbeddings(rows).ok());
  }
  Result<SearchResponse> RunWith(const std::string& query, const std::vector<float>& v, SearchOptions o) {
    auto arm = VectorArm::Open(*engine_, *engine_, dir_.path() / "v.hnsw", kModel, 64, VectorIndexOptions{});
    EXPECT_TRUE(arm.ok()) << arm.status().ToString();
    arm_ = std::move(*arm);
    VectorQuery vq;
    vq.arm = arm_.get();
    vq.vectors.push_back(v);
    o.mode = SearchMode::kHybrid;
    return HybridSearch(*engine_, query, o, vq);
  }
  Result<SearchResponse> Run(const std::string& query, SearchOptions o, size_t exact_below) {
    VectorIndexOptions vo;
    vo.exact_below = exact_below;
    auto arm = VectorArm::Open(*engine_, *engine_, dir_.path() / "v.hnsw", kModel, 64, vo);
    EXPECT_TRUE(arm.ok()) << arm.status().ToString();
    arm_ = std::move(*arm);
    VectorQuery vq;
    vq.arm = arm_.get();
    vq.vectors.push_back(*hash_->Embed({query}, embed::EmbedKind::kQuery));
    if (o.mode == SearchMode::kDefault) o.mode = SearchMode::kHybrid;
    return HybridSearch(*engine_, query, o, vq);
  }
  static constexpr const char* kModel = "hash:test";
  TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<embed::Embedder> hash_ = embed::NewHashEmbedder(64);
  std::unique_ptr<VectorArm> arm_;
};

TEST_F(HybridSearchTest, PrivatePagesStayOutOfEveryArm) {
  for (size_t exact_below : {size_t{1000}, size_t{1}}) {  // flat, then the HNSW graph
    for (const char* mode : {"hybrid", "vector"}) {
      SearchOptions o;
      o.mode = *ParseSearchMode(mode);
      o.include_private = false;
      auto r = Run("reciprocal rank fusion private notes", o, exact_below);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_FALSE(r->results.empty());
      for (const auto& h : r->results) EXPECT_NE(h.slug, "people/secret") << mode << " " << exact_below;
      o.include_private = true;
      r = Run("reciprocal rank fusion private notes", o, exact_below);
      bool found = false;
      for (const auto& h : r->results) found = found || h.slug == "people/secret";
      EXPECT_TRUE(found) << mode << " " << exact_below;
    }
  }
}

TEST_F(HybridSearchTest, FiltersApplyToEveryArm) {
  SearchOptions o;
  o.include_private = true;
  o.filter.types = {"person"};
  o.filter.include_private = true;
  auto r = Run("rank fusion", o, 1);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->results.empty());
  for (const auto& h : r->results) EXPECT_EQ(h.type, "person");
}

TEST_F(HybridSearchTest, VectorArmCatchesUpWithTheLog) {
  SearchOptions o;
  o.include_private = true;
  o.mode = SearchMode::kVector;
  ASSERT_TRUE(Run("rank fusion", o, 1).ok());  // builds and saves the graph
  Put("notes/new.md", "---\ntitle: Quantum\n---\nQuantum annealing schedules.\n");
  EmbedAll();
  ASSERT_TRUE(engine_->DeletePage("default", "people/ann").ok());
  auto r = Run("quantum annealing schedules", o, 1);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->results.empty());
  EXPECT_EQ(r->results[0].slug, "notes/new");
  for (const auto& h : r->results) EXPECT_NE(h.slug, "people/ann");  // no ghost vector
  EXPECT_EQ(arm_->size(), 3u);
}

// A long-lived process (a server's pooled brain) keeps its arm open: before
// each search it catches up with what was written since — here through the
// same engine, in a server through any other — flat or graph, without reopening.
TEST_F(HybridSearchTest, AnOpenArmCatchesUpWithoutReopening) {
  for (const size_t exact_below : {size_t{1}, size_t{10000}}) {
    SCOPED_TRACE(exact_below == 1 ? "graph" : "flat");
    SearchOptions o;
    o.include_private = true;
    o.mode = SearchMode::kVector;
    ASSERT_TRUE(Run("rank fusion", o, exact_below).ok());  // opens arm_
    const std::string slug = "notes/new" + std::to_string(exact_below);
    Put(slug + ".md", "---\ntitle: Quantum\n---\nQuantum annealing schedules.\n");
    EmbedAll();
    ASSERT_TRUE(engine_->DeletePage("default", "people/ann").ok());
    ASSERT_TRUE(arm_->CatchUp(*engine_, *engine_).ok());
    VectorQuery vq;
    vq.arm = arm_.get();
    vq.vectors.push_back(*hash_->Embed({"quantum annealing schedules"}, embed::EmbedKind::kQuery));
    auto r = HybridSearch(*engine_, "quantum annealing schedules", o, vq);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(r->results.empty());
    EXPECT_EQ(r->results[0].slug, slug);
    for (const auto& h : r->results) EXPECT_NE(h.slug, "people/ann");  // no ghost vector
    Put("people/ann.md", "---\ntitle: Ann\n---\nAnn works on rank fusion for search.\n");
    EmbedAll();
    ASSERT_TRUE(engine_->DeletePage("default", slug).ok());
  }
}

TEST_F(HybridSearchTest, AQuestionAboutTimeBoostsChunksThatWriteADate) {
  Put("notes/log.md", "---\ntitle: Log\n---\n- **2024-09-02** | Ann joined the rank fusion team\n");
  EmbedAll();
  SearchOptions o;
  o.explain = true;
  auto r = Run("When did Ann join rank fusion?", o, 1000);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->intent, "temporal");
  bool seen = false;
  for (const SearchHit& h : r->results) {
    EXPECT_DOUBLE_EQ(h.explain.boost, h.chunk_dates.empty() ? 1.0 : kDatedBoost) << h.slug;
    seen = seen || h.slug == "notes/log";
  }
  EXPECT_TRUE(seen);
  ASSERT_FALSE(r->results.empty());
  EXPECT_EQ(r->results[0].chunk_dates, std::vector<std::string>{"2024-09-02"});
  // Not a question about time: no boost.
  auto plain = Run("Ann rank fusion team", o, 1000);
  ASSERT_TRUE(plain.ok());
  for (const SearchHit& h : plain->results) EXPECT_DOUBLE_EQ(h.explain.boost, 1.0) << h.slug;
}

TEST_F(HybridSearchTest, VectorModeWithoutVectorsIsAnError) {
  SearchOptions o;
  o.mode = SearchMode::kVector;
  VectorQuery none;
  none.off_reason = "no model";
  auto r = HybridSearch(*engine_, "fusion", o, none);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no model"), std::string::npos);
  o.mode = SearchMode::kHybrid;
  r = HybridSearch(*engine_, "fusion", o, none);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->notes.empty());
  EXPECT_EQ(HybridSearch(*engine_, "  ", o, none).status().code(), StatusCode::kInvalidArgument);
}

// Forty pages, some about fusion in various words.
void PutCorpus(const std::function<void(const std::string&, const std::string&)>& put) {
  const char* words[] = {"alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"};
  for (int i = 0; i < 40; ++i) {
    std::string body = std::string(words[i % 8]) + " " + words[(i * 3) % 8] + " notes number " + std::to_string(i);
    if (i % 5 == 0) body += " rank fusion";
    if (i % 10 == 0) body += " merges ranked lists";
    put("notes/n" + std::to_string(i) + ".md", "---\ntitle: Note " + std::to_string(i) + "\n---\n" + body + "\n");
  }
}

TEST_F(HybridSearchTest, ArmWithoutSignalLeavesTheKeywordRanking) {
  PutCorpus([&](const std::string& p, const std::string& t) { Put(p, t); });
  // Every chunk and the query the same vector: the arm cannot tell any two apart.
  std::vector<float> same(64, 0.125f);
  EmbedWith([&](size_t) { return same; });
  SearchOptions o;
  o.limit = 10;
  o.explain = true;
  auto keyword = KeywordSearch(*engine_, "rank fusion merges lists", o);
  ASSERT_TRUE(keyword.ok());
  auto hybrid = RunWith("rank fusion merges lists", same, o);
  ASSERT_TRUE(hybrid.ok()) << hybrid.status().ToString();
  ASSERT_EQ(hybrid->confidence.size(), 1u);
  EXPECT_EQ(hybrid->confidence[0].second, 0.0);
  ASSERT_EQ(hybrid->results.size(), keyword->results.size());
  for (size_t i = 0; i < keyword->results.size(); ++i) {
    EXPECT_EQ(hybrid->results[i].slug, keyword->results[i].slug) << i;
    EXPECT_EQ(hybrid->results[i].explain.cosine_share, 0.0);
  }
}

// Issue 32: a query no keyword matches, beside a vector arm without signal,
// finds nothing — not the first pages of the vector index at score 0.
TEST_F(HybridSearchTest, AQueryThatMatchesNothingFindsNothing) {
  PutCorpus([&](const std::string& p, const std::string& t) { Put(p, t); });
  std::vector<float> same(64, 0.125f);
  EmbedWith([&](size_t) { return same; });
  SearchOptions o;
  o.limit = 10;
  auto keyword = KeywordSearch(*engine_, "zyxwvut", o);
  ASSERT_TRUE(keyword.ok());
  ASSERT_TRUE(keyword->results.empty());
  auto hybrid = RunWith("zyxwvut", same, o);
  ASSERT_TRUE(hybrid.ok()) << hybrid.status().ToString();
  ASSERT_EQ(hybrid->confidence.size(), 1u);
  EXPECT_EQ(hybrid->confidence[0].second, 0.0);
  EXPECT_TRUE(hybrid->results.empty()) << hybrid->results.size() << " results, the first at score "
                                       << hybrid->results.front().score;
}

TEST_F(HybridSearchTest, ConfidentArmBringsInWhatKeywordsMiss) {
  PutCorpus([&](const std::string& p, const std::string& t) { Put(p, t); });
  // Random unit vectors (cosines ~ N(0, 1/64)); the query is chunk 7's vector.
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<std::vector<float>> vectors(64, std::vector<float>(64));
  for (auto& v : vectors) {
    float n = 0;
    for (float& x : v) {
      x = normal(rng);
      n += x * x;
    }
    for (float& x : v) x /= std::sqrt(n);
  }
  EmbedWith([&](size_t i) { return vectors[i]; });
  auto tasks = engine_->ChunksToEmbed(kModel, true, ChunkId(), 1000);
  ASSERT_TRUE(tasks.ok());
  auto target = engine_->GetChunks(ReadScope::All("default"), {(*tasks)[7].chunk_id});
  ASSERT_TRUE(target.ok() && target->size() == 1);
  SearchOptions o;
  o.limit = 5;
  auto hybrid = RunWith("rank fusion", vectors[7], o);
  ASSERT_TRUE(hybrid.ok()) << hybrid.status().ToString();
  ASSERT_EQ(hybrid->confidence.size(), 1u);
  EXPECT_EQ(hybrid->confidence[0].second, 1.0);
  bool found = false;
  for (const auto& h : hybrid->results) found = found || h.slug == (*target)[0].slug;
  EXPECT_TRUE(found) << (*target)[0].slug << " (no keyword match) should come in through the vector arm";
}

}  // namespace
}  // namespace engram::search
