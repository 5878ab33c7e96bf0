#include "search/metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace engram::search {
namespace {

TEST(Metrics, NdcgMatchesHandComputedValue) {
  // Relevant: d1 (grade 2), d3 (grade 1). Ranking: d3, d2, d1.
  // DCG = 1/log2(2) + 2/log2(4) = 1 + 1 = 2; IDCG = 2/log2(2) + 1/log2(3) = 2 + 0.63093 = 2.63093.
  Qrels q = {{"d1", 2}, {"d3", 1}};
  EXPECT_NEAR(NdcgAtK({"d3", "d2", "d1"}, q, 10), 2.0 / (2.0 + 1.0 / std::log2(3.0)), 1e-9);
  EXPECT_NEAR(NdcgAtK({"d1", "d3"}, q, 10), 1.0, 1e-12);
  EXPECT_EQ(NdcgAtK({"x", "y"}, q, 10), 0.0);
  EXPECT_EQ(NdcgAtK({"d1"}, {}, 10), 0.0);
}

TEST(Metrics, NdcgCutsAtK) {
  Qrels q = {{"d1", 1}};
  EXPECT_EQ(NdcgAtK({"a", "b", "d1"}, q, 2), 0.0);
  EXPECT_NEAR(NdcgAtK({"a", "b", "d1"}, q, 3), 1.0 / std::log2(4.0), 1e-12);
}

TEST(Metrics, RecallAndMrr) {
  Qrels q = {{"a", 1}, {"b", 1}, {"c", 0}};
  EXPECT_DOUBLE_EQ(RecallAtK({"x", "a", "c"}, q, 10), 0.5);
  EXPECT_DOUBLE_EQ(RecallAtK({"x", "a", "b"}, q, 2), 0.5);
  EXPECT_DOUBLE_EQ(RecallAtK({"b", "a"}, q, 2), 1.0);
  EXPECT_DOUBLE_EQ(MrrAtK({"c", "x", "b"}, q, 10), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(MrrAtK({"c", "x", "b"}, q, 2), 0.0);
}

TEST(Metrics, PercentileInterpolates) {
  EXPECT_DOUBLE_EQ(Percentile({5, 1, 3}, 50), 3);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4}, 50), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4, 5}, 95), 4.8);
  EXPECT_DOUBLE_EQ(Percentile({}, 50), 0);
}

}  // namespace
}  // namespace engram::search
