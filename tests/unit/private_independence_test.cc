// Nothing a caller who may not see private pages observes depends on them:
// the same public pages with and without private pages beside them give the
// same results, scores, vector confidence and backlink counts (keyword and
// hybrid, flat and HNSW vector arms). The probes are the red team's: a word
// found only in a private page, and BM25 scores of public pages that a
// private page's words would shift.
#include <gtest/gtest.h>

#include "embed/embedder.h"
#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "search/hybrid.h"
#include "search/keyword_search.h"
#include "search/vector_arm.h"
#include "sync/page_indexer.h"
#include "test_support.h"

namespace engram::search {
namespace {

using testing::TempDir;

constexpr const char* kModel = "hash:test";

struct Store {
  TempDir dir;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<embed::Embedder> hash = embed::NewHashEmbedder(64);

  explicit Store(bool with_private) {
    EngineOptions o;
    o.create_if_missing = true;
    auto opened = OpenSqliteStore(dir.path() / "engram.db", o);
    EXPECT_TRUE(opened.ok());
    engine = std::move(*opened);
    // Private pages go in between public ones, so ids differ between the stores.
    Put("concepts/fusion.md", "---\ntitle: Fusion\n---\nReciprocal rank fusion merges keyword and vector lists.\n");
    if (with_private) {
      Put("diary/a.md", "---\nvisibility: private\n---\nzanzibar zanzibar okapi fusion fusion fusion lists.\n"
                        "See [[concepts/fusion]] and [[people/ann]].\n");
    }
    Put("people/ann.md", "---\ntitle: Ann\n---\nAnn works on rank fusion for search and okapi scoring.\n");
    if (with_private) {
      Put("diary/b.md", "---\nvisibility: private\ntitle: Okapi Zanzibar\n---\nokapi okapi zanzibar rank rank.\n"
                        "[[concepts/fusion]]\n");
    }
    Put("notes/lists.md", "---\ntitle: Lists\n---\nPosting lists hold keyword postings; vector lists hold neighbours.\n");
    Put("notes/scoring.md", "---\ntitle: Scoring\n---\nBM25 scoring with okapi weights and rank cut-offs.\n");
    // Enough chunks for the vector arm's chance sample to judge confidence.
    const char* topics[] = {"gardening tomatoes", "sailing knots", "bread baking", "chess openings",
                            "bird migration", "tea brewing", "cycling routes", "river otters",
                            "glass blowing", "jazz chords", "rock climbing", "paper folding"};
    for (size_t i = 0; i < std::size(topics); ++i) {
      Put("misc/topic-" + std::to_string(i) + ".md", std::string("Notes on ") + topics[i] + " and related things.\n");
    }
    EmbedAll();
  }
  void Put(const std::string& path, const std::string& text) {
    auto w = sync::PreparePage(path, text, {});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(engine->PutPage(*w).ok());
  }
  void EmbedAll() {
    auto tasks = engine->ChunksToEmbed(kModel, false, ChunkId(), 1000);
    ASSERT_TRUE(tasks.ok());
    std::vector<std::string> texts;
    for (const auto& t : *tasks) texts.push_back(t.text);
    auto v = hash->Embed(texts, embed::EmbedKind::kDocument);
    ASSERT_TRUE(v.ok());
    std::vector<EmbeddingWrite> rows;
    for (size_t i = 0; i < tasks->size(); ++i) {
      rows.push_back({(*tasks)[i].chunk_id, kModel, EmbeddingTextHash((*tasks)[i].text),
                      std::vector<float>(v->begin() + i * 64, v->begin() + (i + 1) * 64)});
    }
    ASSERT_TRUE(engine->StoreEmbeddings(rows).ok());
  }
  // What a remote caller sees of a search, ids left out.
  std::string Observe(const std::string& query, const std::string& mode, size_t exact_below) {
    SearchOptions o;
    o.mode = *ParseSearchMode(mode);
    o.include_private = false;
    o.explain = true;
    Result<SearchResponse> r = Status::Internal("not run");
    std::unique_ptr<VectorArm> arm;
    if (mode == "keyword") {
      r = KeywordSearch(*engine, query, o);
    } else {
      VectorIndexOptions vo;
      vo.exact_below = exact_below;
      auto opened = VectorArm::Open(*engine, *engine, dir.path() / "v.hnsw", kModel, 64, vo);
      EXPECT_TRUE(opened.ok()) << opened.status().ToString();
      arm = std::move(*opened);
      VectorQuery vq;
      vq.arm = arm.get();
      vq.vectors.push_back(*hash->Embed({query}, embed::EmbedKind::kQuery));
      r = HybridSearch(*engine, query, o, vq);
    }
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return "";
    std::string out;
    char buf[64];
    for (const auto& [arm_name, confidence] : r->confidence) {
      std::snprintf(buf, sizeof buf, "%.9g", confidence);
      out += "confidence " + arm_name + " " + buf + "\n";
    }
    for (const SearchHit& h : r->results) {
      std::snprintf(buf, sizeof buf, "%.9g", h.score);
      out += h.slug + " " + buf;
      out += " backlinks " + std::to_string(h.explain.backlinks);
      out += "\n";
    }
    return out;
  }
};

TEST(PrivateIndependence, RemoteResultsDoNotDependOnPrivatePages) {
  Store with(true), without(false);
  for (const char* query : {"zanzibar", "okapi", "okapi zanzibar", "rank fusion", "fusion lists", "\"rank fusion\"",
                            "okapi -zanzibar", "+okapi scoring"}) {
    EXPECT_EQ(with.Observe(query, "keyword", 0), without.Observe(query, "keyword", 0)) << query;
    for (size_t exact_below : {size_t{1000}, size_t{1}}) {  // flat, then the HNSW graph
      EXPECT_EQ(with.Observe(query, "hybrid", exact_below), without.Observe(query, "hybrid", exact_below))
          << query << " exact_below=" << exact_below;
    }
  }
}

}  // namespace
}  // namespace engram::search
