// The pure stages of hybrid search against hand-computed examples: intent,
// reciprocal rank fusion, arm confidence, rescoring and boosts, and the five
// dedup layers.
#include <gtest/gtest.h>

#include <cmath>

#include "search/confidence.h"
#include "search/dedup.h"
#include "search/fusion.h"
#include "search/intent.h"

namespace engram::search {
namespace {

TEST(Intent, QuestionSubjectDropsTheFrameInBothLanguages) {
  EXPECT_EQ(QuestionSubject("MCP 是什么"), "MCP");
  EXPECT_EQ(QuestionSubject("MCP是什么？"), "MCP");
  EXPECT_EQ(QuestionSubject("什么是混合检索"), "混合检索");
  EXPECT_EQ(QuestionSubject("如何配置 WAL 模式"), "配置 WAL 模式");
  EXPECT_EQ(QuestionSubject("标签有哪些"), "标签");
  EXPECT_EQ(QuestionSubject("能用吗"), "能用");
  EXPECT_EQ(QuestionSubject("What is RRF?"), "RRF");
  EXPECT_EQ(QuestionSubject("how do I sync a vault"), "sync a vault");
  EXPECT_EQ(QuestionSubject("whatever is fine"), "whatever is fine");  // whole words only
  EXPECT_EQ(QuestionSubject("是什么"), "是什么");                      // nothing else: the query itself
}

TEST(Intent, EnglishAndChineseCues) {
  EXPECT_EQ(ClassifyIntent("Who is Zhang San?"), Intent::kEntity);
  EXPECT_EQ(ClassifyIntent("tell me about Acme"), Intent::kEntity);
  EXPECT_EQ(ClassifyIntent("谁是张三"), Intent::kEntity);
  EXPECT_EQ(ClassifyIntent("介绍一下这家公司"), Intent::kEntity);
  EXPECT_EQ(ClassifyIntent("When did Acme ship v2"), Intent::kTemporal);
  EXPECT_EQ(ClassifyIntent("latest funding news"), Intent::kTemporal);
  EXPECT_EQ(ClassifyIntent("张三什么时候加入公司"), Intent::kTemporal);
  EXPECT_EQ(ClassifyIntent("meetings in 2026-04"), Intent::kTemporal);
  EXPECT_EQ(ClassifyIntent("2026年4月的会议"), Intent::kTemporal);
  EXPECT_EQ(ClassifyIntent("Acme raised a series B"), Intent::kEvent);
  EXPECT_EQ(ClassifyIntent("公司融资情况"), Intent::kEvent);
  EXPECT_EQ(ClassifyIntent("What is hybrid search?"), Intent::kConcept);
  EXPECT_EQ(ClassifyIntent("什么是混合检索"), Intent::kConcept);
  EXPECT_EQ(ClassifyIntent("hybrid search ranking"), Intent::kGeneral);
  // Whole words only: "whenever" is not "when", "announcements" not "announced".
  EXPECT_EQ(ClassifyIntent("whenever possible"), Intent::kGeneral);
  EXPECT_EQ(ClassifyIntent("port 20260"), Intent::kGeneral);  // not a year
  EXPECT_EQ(ClassifyIntent(""), Intent::kGeneral);
  EXPECT_STREQ(IntentName(Intent::kConcept), "concept");
}

TEST(Intent, EntityNameStripsTheCues) {
  EXPECT_EQ(EntityName("Who is Zhang San?"), "Zhang San");
  EXPECT_EQ(EntityName("tell me about Northwind Robotics"), "Northwind Robotics");
  EXPECT_EQ(EntityName("谁是张三"), "张三");
  EXPECT_EQ(EntityName("介绍一下星河智能。"), "星河智能");
  EXPECT_EQ(EntityName("张三是谁？"), "张三");
  EXPECT_EQ(EntityName("who is"), "");
  EXPECT_EQ(EntityName("Whois lookup"), "Whois lookup");  // not a whole-word cue
}

TEST(Fusion, ReciprocalRankFusionByHand) {
  // keyword (w 1): 10, 20, 30; vector (w 2): 20, 40.
  //   10: 1/60            = 0.0166667
  //   20: 1/61 + 2/60     = 0.0497268 (the best: normalised to 1)
  //   30: 1/62            = 0.0161290
  //   40: 2/61            = 0.0327869
  auto fused = ReciprocalRankFusion({{"keyword", 1.0, {10, 20, 30}, {}}, {"vector", 2.0, {20, 40}, {}}});
  ASSERT_EQ(fused.size(), 4u);
  EXPECT_EQ(fused[0].id, 20);
  EXPECT_EQ(fused[1].id, 40);
  EXPECT_EQ(fused[2].id, 10);
  EXPECT_EQ(fused[3].id, 30);
  EXPECT_DOUBLE_EQ(fused[0].rrf, 1.0);
  EXPECT_NEAR(fused[1].rrf, 0.0327869 / 0.0497268, 1e-6);
  EXPECT_NEAR(fused[2].rrf, 0.0166667 / 0.0497268, 1e-6);
  EXPECT_NEAR(fused[3].rrf, 0.0161290 / 0.0497268, 1e-6);
  EXPECT_EQ(fused[0].rank, (std::vector<int>{1, 0}));
  EXPECT_NEAR(fused[0].contribution[1], 2.0 / 60, 1e-12);
  EXPECT_EQ(fused[1].rank, (std::vector<int>{-1, 1}));
  // A repeated id counts at its best rank only; empty lists fuse to nothing.
  auto repeated = ReciprocalRankFusion({{"a", 1.0, {5, 5, 6}, {}}});
  ASSERT_EQ(repeated.size(), 2u);
  EXPECT_NEAR(repeated[1].rrf, (1.0 / 62) / (1.0 / 60), 1e-12);
  EXPECT_TRUE(ReciprocalRankFusion({{"a", 1.0, {}, {}}}).empty());
  EXPECT_TRUE(ReciprocalRankFusion({}).empty());
}

TEST(Fusion, PerIdConfidenceScalesContributions) {
  // keyword: 10, 20; title (w 1.5) with confidences 0.5, 0: 20, 30.
  //   10: 1/60                 = 0.0166667
  //   20: 1/61 + 1.5·0.5/60    = 0.0288934 (the best)
  //   30: 1.5·0/61             = 0 (listed, adds nothing)
  auto fused = ReciprocalRankFusion({{"keyword", 1.0, {10, 20}, {}}, {"title", 1.5, {20, 30}, {0.5, 0.0}}});
  ASSERT_EQ(fused.size(), 3u);
  EXPECT_EQ(fused[0].id, 20);
  EXPECT_EQ(fused[1].id, 10);
  EXPECT_EQ(fused[2].id, 30);
  EXPECT_NEAR(fused[0].contribution[1], 0.75 / 60, 1e-12);
  EXPECT_NEAR(fused[1].rrf, (1.0 / 60) / (1.0 / 61 + 0.75 / 60), 1e-12);
  EXPECT_EQ(fused[2].rrf, 0.0);
  EXPECT_EQ(fused[2].rank, (std::vector<int>{-1, 1}));
  // A list whose weight is 0 (an arm with no confidence) leaves the other's order.
  auto off = ReciprocalRankFusion({{"keyword", 1.0, {1, 2, 3}, {}}, {"vector", 0.0, {3, 2, 9}, {}}});
  ASSERT_EQ(off.size(), 4u);
  EXPECT_EQ(off[0].id, 1);
  EXPECT_EQ(off[1].id, 2);
  EXPECT_EQ(off[2].id, 3);
  EXPECT_EQ(off[3].id, 9);
}

TEST(Confidence, ChanceMaximumOfNormalDraws) {
  // The expected maxima of n standard normal draws are 1.539 (n 10), 3.241
  // (1,000) and 4.857 (10⁶); the Gumbel location approaches them from below.
  EXPECT_EQ(ChanceMaximum(0), 0.0);
  EXPECT_EQ(ChanceMaximum(2), 0.0);
  EXPECT_NEAR(ChanceMaximum(10), 1.539, 0.2);
  EXPECT_NEAR(ChanceMaximum(1000), 3.241, 0.15);
  EXPECT_NEAR(ChanceMaximum(1000000), 4.857, 0.1);
  EXPECT_LT(ChanceMaximum(1000), ChanceMaximum(1001));
}

TEST(Confidence, VectorArmAgainstItsBackground) {
  // Background: 0.1 ± 0.1 (alternating 0 and 0.2: mean 0.1, sd 0.1·sqrt(256/255)).
  std::vector<float> background;
  for (int i = 0; i < 256; ++i) background.push_back(i % 2 == 0 ? 0.0f : 0.2f);
  const double sd = 0.1 * std::sqrt(256.0 / 255.0);
  const double bar = ChanceMaximum(10000);  // 3.6…
  auto at = [&](double z) { return 0.1 + z * sd; };
  EXPECT_EQ(VectorConfidence(at(bar), background, 10000), 0.0);         // what chance gives: nothing
  EXPECT_EQ(VectorConfidence(at(bar * 0.5), background, 10000), 0.0);
  EXPECT_NEAR(VectorConfidence(at(bar * 1.5), background, 10000), 0.25, 1e-6);  // ramp 0.5, squared
  EXPECT_NEAR(VectorConfidence(at(bar * 2), background, 10000), 1.0, 1e-6);
  EXPECT_EQ(VectorConfidence(0.99, background, 10000), 1.0);
  // The same best counts for less in a larger collection (chance goes higher).
  EXPECT_GT(VectorConfidence(at(bar * 1.5), background, 10000), VectorConfidence(at(bar * 1.5), background, 1000000));
  // Too small a sample to know what chance gives: trusted.
  EXPECT_EQ(VectorConfidence(0.1, {0.1f, 0.2f}, 2), 1.0);
  // Every chunk alike: only a better one counts.
  std::vector<float> flat(64, 0.5f);
  EXPECT_EQ(VectorConfidence(0.5, flat, 64), 0.0);
  EXPECT_EQ(VectorConfidence(0.9, flat, 64), 1.0);
}

TEST(Confidence, TitleCountsWhenTheQueryNamesThePage) {
  using V = std::vector<std::string>;
  // "who is zhang san" analyses to {zhang, san}: the title is the query.
  EXPECT_EQ(TitleConfidence({"zhang", "san"}, {{"zhang", "san"}}), 1.0);
  // A name covering half the query's terms.
  EXPECT_EQ(TitleConfidence({"hnsw", "tune", "recal"}, {{"hnsw"}}), 1.0 / 3);
  // A title with a word outside the query does not name it…
  EXPECT_EQ(TitleConfidence({"hnsw", "tune"}, {{"hnsw", "index"}}), 0.0);
  // …but one of its aliases may; the best name counts.
  EXPECT_EQ(TitleConfidence({"hnsw", "tune"}, {{"hnsw", "index"}, {"hnsw"}, {"tune", "hnsw"}}), 1.0);
  EXPECT_EQ(TitleConfidence({}, {{"hnsw"}}), 0.0);
  EXPECT_EQ(TitleConfidence({"hnsw"}, {V{}}), 0.0);
  EXPECT_EQ(TitleConfidence({"a", "a", "b"}, {{"a"}}), 0.5);  // distinct query terms
}

TEST(Fusion, RescoreAndBoosts) {
  EXPECT_DOUBLE_EQ(Rescore(1.0, 0.5), 0.85);
  EXPECT_DOUBLE_EQ(Rescore(0.0, 1.0), 0.3);
  EXPECT_DOUBLE_EQ(Rescore(0.8, 0.5, 0.0), 0.8);   // an arm with no confidence: the rrf alone
  EXPECT_DOUBLE_EQ(Rescore(1.0, 0.5, 0.15), 0.925);
  EXPECT_DOUBLE_EQ(BacklinkBoost(0.8, 0), 0.8);
  EXPECT_NEAR(BacklinkBoost(1.0, 3), 1.0 + 0.05 * std::log(4.0), 1e-12);
  EXPECT_GT(WeightsFor(Intent::kEntity).title, WeightsFor(Intent::kGeneral).title);
  EXPECT_GT(WeightsFor(Intent::kConcept).vector, WeightsFor(Intent::kEntity).vector);
}

TEST(Dedup, JaccardOfWordSets) {
  EXPECT_DOUBLE_EQ(Jaccard("alpha beta gamma", "alpha beta gamma delta"), 0.75);
  EXPECT_DOUBLE_EQ(Jaccard("Alpha BETA", "beta alpha"), 1.0);
  EXPECT_DOUBLE_EQ(Jaccard("", ""), 1.0);
  EXPECT_DOUBLE_EQ(Jaccard("one", ""), 0.0);
}

DedupCandidate C(int64_t chunk, int64_t page, const char* type, bool truth, const char* text, double score) {
  return {chunk, page, type, truth, text, score};
}

TEST(Dedup, FiveLayersByHand) {
  std::vector<DedupCandidate> in = {
      C(1, 1, "concept", true, "alpha beta gamma", 0.9),
      C(2, 1, "concept", true, "alpha beta gamma delta", 0.85),  // Jaccard 0.75 with 1: kept
      C(3, 1, "concept", false, "gamma beta alpha", 0.8),        // Jaccard 1.0 with 1: dropped (layer 2)
      C(4, 1, "concept", true, "zeta eta", 0.7),                 // third of page 1: past layer 4's 2
      C(5, 2, "person", false, "one two", 0.6),                  // timeline only shown…
      C(6, 2, "person", true, "three four", 0.1),                // …so layer 5 brings this one in
  };
  // limit 3: the type cap is floor(0.6 × 3) = 1 per type on the first pass:
  // 1 (concept), 5 (person); the fill pass adds 2 (page 1's second chunk).
  // Layer 5 then swaps page 2's timeline chunk 5 for its compiled truth 6.
  auto out = Dedup(in, 3);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].chunk_id, 1);
  EXPECT_EQ(out[1].chunk_id, 2);
  EXPECT_EQ(out[2].chunk_id, 6);
  // limit 10: per page at most 2 (1, 2 of page 1), and 5 + 6 of page 2.
  out = Dedup(in, 10);
  std::vector<int64_t> ids;
  for (const auto& c : out) ids.push_back(c.chunk_id);
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 5, 6}));
}

// Regression: with one result (search -n 1, context --limit 1) layer 5
// replaced the best-matching chunk with the page's compiled truth.
TEST(Dedup, TheBestChunkIsNeverSwappedForCompiledTruth) {
  std::vector<DedupCandidate> in = {
      C(5, 2, "person", false, "joined acme as cto in march", 0.9),
      C(6, 2, "person", true, "li wei is an engineer", 0.2),
  };
  auto one = Dedup(in, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].chunk_id, 5);
  auto two = Dedup(in, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].chunk_id, 5);
  EXPECT_EQ(two[1].chunk_id, 6);
}

TEST(Dedup, TypeCapGivesWayWhenNothingElseIsLeft) {
  std::vector<DedupCandidate> in;
  for (int i = 0; i < 6; ++i) in.push_back(C(i + 1, i + 1, "concept", true, std::to_string(i).c_str(), 1.0 - i * 0.1));
  in.push_back(C(100, 100, "person", true, "someone", 0.05));
  auto out = Dedup(in, 5);
  ASSERT_EQ(out.size(), 5u);
  // floor(0.6 × 5) = 3 concepts, the person, then the fill: concept 4.
  std::vector<int64_t> ids;
  for (const auto& c : out) ids.push_back(c.chunk_id);
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3, 4, 100}));
  EXPECT_TRUE(Dedup({}, 5).empty());
}

}  // namespace
}  // namespace engram::search
