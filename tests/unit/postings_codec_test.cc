#include "store/postings_codec.h"

#include <gtest/gtest.h>

#include <random>

namespace engram::store {
namespace {

TEST(PostingsCodec, RoundTripsRandomLists) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Posting> list;
    int64_t doc = 0;
    size_t n = rng() % 300;
    for (size_t i = 0; i < n; ++i) {
      doc += 1 + static_cast<int64_t>(rng() % (trial % 2 ? 3 : 1000000));
      list.push_back({doc, static_cast<int64_t>(rng() % 100000), static_cast<uint32_t>(1 + rng() % 50),
                      static_cast<uint32_t>(rng() % 5000)});
    }
    std::vector<Posting> back;
    ASSERT_TRUE(DecodePostings(EncodePostings(list), &back).ok());
    EXPECT_EQ(back, list);
    EXPECT_EQ(*PostingCount(EncodePostings(list)), n);
  }
}

TEST(PostingsCodec, EmptyBlobIsAnEmptyList) {
  std::vector<Posting> out = {{1, 1, 1, 1}};
  ASSERT_TRUE(DecodePostings("", &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(PostingsCodec, DamagedBlobsAreCorruptionNotCrashes) {
  std::string blob = EncodePostings({{5, 1, 2, 3}, {9, 1, 1, 4}});
  std::vector<Posting> out;
  for (size_t cut = 1; cut < blob.size(); ++cut) {
    EXPECT_EQ(DecodePostings(blob.substr(0, cut), &out).code(), StatusCode::kCorruption) << cut;
  }
  EXPECT_EQ(DecodePostings(blob + "x", &out).code(), StatusCode::kCorruption);
  EXPECT_EQ(DecodePostings(std::string(12, '\xFF'), &out).code(), StatusCode::kCorruption);
  std::string zero_delta;
  AppendVarint(2, &zero_delta);
  for (int i = 0; i < 2; ++i) {
    AppendVarint(i == 0 ? 7 : 0, &zero_delta);  // second posting repeats the doc
    AppendVarint(1, &zero_delta);
    AppendVarint(1, &zero_delta);
    AppendVarint(1, &zero_delta);
  }
  EXPECT_EQ(DecodePostings(zero_delta, &out).code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace engram::store
