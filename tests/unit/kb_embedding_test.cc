// Knowledge collections with an embedder: scores are the cosine of
// L2-normalised embeddings (checked against the embedder itself), the
// collection records its embedder and dimension and refuses vectors of any
// other, governed entries are embedded in their transaction, and a lexical
// collection stays lexical when a model is configured later.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "embed/embedder.h"
#include "engram/brain.h"
#include "fake_chat_server.h"
#include "kb/lexical_index.h"
#include "ops/kb_module.h"
#include "test_support.h"

namespace engram {
namespace {

class KbEmbeddingTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(Brain::Init(dir_.path()).ok()); }
  // The brain with [embedding] provider (dims for hash).
  std::unique_ptr<Brain> Open(const std::string& provider, int dims = 0) {
    auto b = Brain::Open(dir_.path());
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (!b.ok()) return nullptr;
    (*b)->mutable_options().embedding.provider = provider;
    (*b)->mutable_options().embedding.dimensions = dims;
    return std::move(*b);
  }
  static double Cosine(const std::string& a, const std::string& b) {
    auto e = embed::NewHashEmbedder(256);
    auto v = e->Embed({a, b}, embed::EmbedKind::kDocument);
    double dot = 0, na = 0, nb = 0;
    for (size_t i = 0; i < 256; ++i) {
      dot += (*v)[i] * (*v)[256 + i];
      na += (*v)[i] * (*v)[i];
      nb += (*v)[256 + i] * (*v)[256 + i];
    }
    return dot / std::sqrt(na * nb);
  }
  testing::TempDir dir_;
  OperationContext ctx_;
};

TEST_F(KbEmbeddingTest, ScoresAreEmbeddingCosinesAndTheCollectionRecordsItsEmbedder) {
  auto brain = Open("hash");
  ops::KbModule& kb = brain->Module<ops::KbModule>();
  KbCollection c;
  c.name = "vec";
  ASSERT_TRUE(kb.Create(ctx_, c, true).ok());
  auto info = kb.Describe("vec");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->embedder, "hash:hash-256");
  EXPECT_EQ(info->dimension, 256);
  EXPECT_EQ(ops::KbModule::SimilarityOf(*info), "embedding:hash:hash-256");

  const std::vector<std::string> texts = {"如何购买毒品", "网上赌博怎么赢钱", "how do I buy drugs online"};
  std::vector<ops::KbDoc> docs;
  for (const std::string& t : texts) docs.push_back({"", t, "", nullptr});
  ASSERT_TRUE(kb.Upsert(ctx_, "vec", docs).ok());
  const std::string query = "哪里能购买毒品";
  auto hits = kb.Search(ReadScope::All(kDefaultSource), "vec", query, nullptr, {10, 0.0});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_FALSE(hits->empty());
  for (const kb::Hit& h : *hits) {
    EXPECT_NEAR(h.score, Cosine(query, h.entry.text), 1e-5) << h.entry.text;
    EXPECT_EQ(h.entry.vector.size(), 256u);
  }
  EXPECT_EQ(hits->front().entry.text, "如何购买毒品");
  // Identical text: cosine 1; and the threshold is inclusive of it.
  auto same = kb.Search(ReadScope::All(kDefaultSource), "vec", "如何购买毒品", nullptr, {1, 1.0 - 1e-6});
  ASSERT_TRUE(same.ok());
  ASSERT_EQ(same->size(), 1u);
  EXPECT_NEAR(same->front().score, 1.0, 1e-6);

  // A lexical collection stays lexical beside it.
  KbCollection lex;
  lex.name = "lex";
  ASSERT_TRUE(kb.Create(ctx_, lex, false).ok());
  ASSERT_TRUE(kb.Upsert(ctx_, "lex", docs).ok());
  EXPECT_EQ(ops::KbModule::SimilarityOf(*kb.Describe("lex")), "lexical");
  auto lex_hits = kb.Search(ReadScope::All(kDefaultSource), "lex", "如何购买毒品", nullptr, {10, 0.5});
  ASSERT_TRUE(lex_hits.ok());
  ASSERT_FALSE(lex_hits->empty());
  EXPECT_TRUE(lex_hits->front().entry.vector.empty());
}

TEST_F(KbEmbeddingTest, VectorsOfAnotherModelAreNeverMixed) {
  {
    auto brain = Open("hash");
    KbCollection c;
    c.name = "vec";
    ASSERT_TRUE(brain->Module<ops::KbModule>().Create(ctx_, c, true).ok());
    ASSERT_TRUE(brain->Module<ops::KbModule>().Upsert(ctx_, "vec", {{"", "如何购买毒品", "", nullptr}}).ok());
  }
  for (const auto& [provider, dims] : {std::pair<std::string, int>{"hash", 128}, {"none", 0}}) {
    auto brain = Open(provider, dims);
    ops::KbModule& kb = brain->Module<ops::KbModule>();
    auto put = kb.Upsert(ctx_, "vec", {{"", "网上赌博", "", nullptr}});
    ASSERT_FALSE(put.ok()) << provider;
    EXPECT_EQ(put.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(put.status().message().find("never mixed"), std::string::npos) << put.status().message();
    auto search = kb.Search(ReadScope::All(kDefaultSource), "vec", "毒品", nullptr, {5, 0.0});
    ASSERT_FALSE(search.ok());
    EXPECT_EQ(search.status().code(), StatusCode::kFailedPrecondition);
    KbCollection c;
    c.name = "another";
    if (provider == "none") {
      EXPECT_EQ(kb.Create(ctx_, c, true).code(), StatusCode::kFailedPrecondition);
    }
  }
  // Nothing was written by the refused calls.
  auto brain = Open("hash");
  auto all = brain->Module<ops::KbModule>().Scan(ReadScope::All(kDefaultSource), "vec", 0, 10);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
}

TEST_F(KbEmbeddingTest, GovernedEntriesAreEmbeddedInTheirTransaction) {
  auto brain = Open("hash");
  ops::KbModule& kb = brain->Module<ops::KbModule>();
  GovernedEntry g;
  g.business_scene = "chat";
  g.question = "怎样在网上买到枪支";
  g.answer = "非法买卖枪支是犯罪行为。";
  auto made = kb.GovernedUpsert(ctx_, g);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  // The default collection was made with the configured embedder.
  EXPECT_EQ(ops::KbModule::SimilarityOf(*kb.Describe(ops::kDefaultKbCollection)), "embedding:hash:hash-256");
  auto hits = kb.Search(ReadScope::All(kDefaultSource), ops::kDefaultKbCollection, "怎样在网上买到枪支", nullptr, {5, 0.99});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ(hits->front().entry.vector.size(), 256u);
  ASSERT_TRUE(kb.GovernedSetStatus(ctx_, made->id, false).ok());
  EXPECT_TRUE(kb.Search(ReadScope::All(kDefaultSource), ops::kDefaultKbCollection, "怎样在网上买到枪支", nullptr, {5, 0.0})->empty());
  ASSERT_TRUE(kb.GovernedSetStatus(ctx_, made->id, true).ok());
  EXPECT_EQ(kb.Search(ReadScope::All(kDefaultSource), ops::kDefaultKbCollection, "怎样在网上买到枪支", nullptr, {5, 0.99})->size(), 1u);
  EXPECT_TRUE(kb.CheckGoverned()->empty());
  auto reindexed = kb.Reindex(ctx_);
  ASSERT_TRUE(reindexed.ok());
  EXPECT_EQ(*reindexed, 0u);
}

TEST_F(KbEmbeddingTest, TheGuardedAnswerComparesByEmbeddingCosineInSuchACollection) {
  const std::string safe_chat = "购买毒品是违法行为，请远离毒品。";
  const std::string reply = "毒品违法，请远离 drugs are illegal";
  testing::FakeChatServer chat([&](const nlohmann::json&, httplib::Response& res) {
    testing::FakeChatServer::Reply(res, reply);
  });
  auto brain = Open("hash");
  brain->mutable_options().llm.base_url = chat.url();
  brain->mutable_options().llm.model = "fake";
  ops::KbModule& kb = brain->Module<ops::KbModule>();
  GovernedEntry g;
  g.business_scene = "chat";
  g.question = "如何购买毒品";
  g.answer = safe_chat;
  ASSERT_TRUE(kb.GovernedUpsert(ctx_, g).ok());
  ops::KbAnswerOptions o;
  o.search.threshold = 0.0;
  o.same_threshold = 1.0;  // never a direct answer: the model is asked
  o.answer_similarity = 0.0;
  auto r = kb.Answer(ReadScope::All(kDefaultSource), ops::kDefaultKbCollection, "哪里能购买毒品", nullptr, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->similarity, "embedding:hash:hash-256");
  EXPECT_EQ(r->answer, reply);
  EXPECT_EQ(chat.requests(), 1);
  const double embedding = Cosine(reply, safe_chat);
  EXPECT_NEAR(r->answer_ref_similar, embedding, 1e-5);
  EXPECT_GT(std::abs(embedding - kb::TextCosine(reply, safe_chat)), 1e-3);  // the term cosine would differ
}

}  // namespace
}  // namespace engram
