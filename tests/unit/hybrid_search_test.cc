// The hybrid pipeline on a real store: private pages stay out of every arm
// for remote callers, filters apply to every arm, the vector arm catches up
// with the vector log, and vector mode without vectors is a clear error.
#include <gtest/gtest.h>

#include "embed/embedder.h"
#include "engram/engine.h"
#include "search/hybrid.h"
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
    auto e = Engine::OpenSqlite(dir_.path() / "engram.db", o);
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
    auto tasks = engine_->ChunksToEmbed(kModel, false, 0, 1000);
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
  Result<SearchResponse> Run(const std::string& query, SearchOptions o, size_t exact_below) {
    VectorIndexOptions vo;
    vo.exact_below = exact_below;
    auto arm = VectorArm::Open(*engine_, dir_.path() / "v.hnsw", kModel, 64, vo);
    EXPECT_TRUE(arm.ok()) << arm.status().ToString();
    arm_ = std::move(*arm);
    VectorQuery vq;
    vq.arm = arm_.get();
    vq.vectors.push_back(*hash_->Embed({query}, embed::EmbedKind::kQuery));
    if (o.mode.empty()) o.mode = "hybrid";
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
      o.mode = mode;
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
  o.mode = "vector";
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

TEST_F(HybridSearchTest, VectorModeWithoutVectorsIsAnError) {
  SearchOptions o;
  o.mode = "vector";
  VectorQuery none;
  none.off_reason = "no model";
  auto r = HybridSearch(*engine_, "fusion", o, none);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no model"), std::string::npos);
  o.mode = "hybrid";
  r = HybridSearch(*engine_, "fusion", o, none);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->notes.empty());
  EXPECT_EQ(HybridSearch(*engine_, "  ", o, none).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace engram::search
