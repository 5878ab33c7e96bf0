#include "store/postings_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace engram::store {
namespace {

std::vector<Posting> RandomList(std::mt19937_64& rng, size_t n, int64_t gap) {
  std::vector<Posting> list;
  int64_t doc = 0;
  for (size_t i = 0; i < n; ++i) {
    doc += 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(gap));
    list.push_back({doc, static_cast<int64_t>(rng() % 100000), static_cast<uint32_t>(1 + rng() % 50),
                    static_cast<uint32_t>(1 + rng() % 5000)});
  }
  return list;
}

TEST(PostingsCodec, RoundTripsRandomListsOfEverySize) {
  std::mt19937_64 rng(42);
  for (size_t n : {0, 1, 2, 127, 128, 129, 255, 256, 257, 1000, 5000}) {
    std::vector<Posting> list = RandomList(rng, n, n % 2 ? 3 : 1000000);
    std::string blob = EncodePostings(list);
    std::vector<Posting> back;
    ASSERT_TRUE(DecodePostings(blob, &back).ok()) << n;
    EXPECT_EQ(back, list) << n;
    auto info = ReadPostingInfo(blob);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->count, n);
    if (n > 0) {
      EXPECT_EQ(info->max_tf, std::max_element(list.begin(), list.end(), [](auto& a, auto& b) { return a.tf < b.tf; })->tf);
      EXPECT_EQ(info->min_dl, std::min_element(list.begin(), list.end(), [](auto& a, auto& b) { return a.dl < b.dl; })->dl);
    }
  }
}

// Oracle: NextGeq equals a linear scan for random increasing targets.
TEST(PostingsCodec, CursorSkipsLikeALinearScan) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<Posting> list = RandomList(rng, 1 + rng() % 2000, 1 + trial * 7);
    std::string blob = EncodePostings(list);
    PostingCursor cursor;
    ASSERT_TRUE(cursor.Open(blob).ok());
    int64_t target = 0;
    int64_t end = list.back().doc + 50;
    while (target <= end) {
      auto want = std::lower_bound(list.begin(), list.end(), target,
                                   [](const Posting& p, int64_t t) { return p.doc < t; });
      const Posting* got = cursor.NextGeq(target);
      if (want == list.end()) {
        EXPECT_EQ(got, nullptr);
      } else {
        ASSERT_NE(got, nullptr) << target;
        EXPECT_EQ(*got, *want);
      }
      target += static_cast<int64_t>(rng() % (trial % 3 == 0 ? 3 : 700));
    }
    EXPECT_EQ(cursor.NextGeq(end + 1), nullptr);
    EXPECT_TRUE(cursor.status().ok());
  }
}

// Lists written in the first layout (128 postings per block, before
// 2026-12-02) are still read, by the decoder and the cursor alike.
TEST(PostingsCodec, ReadsListsOfTheFirstLayout) {
  std::mt19937_64 rng(77);
  for (size_t n : {1, 32, 33, 127, 128, 129, 1000, 5000}) {
    std::vector<Posting> list = RandomList(rng, n, n % 2 ? 3 : 5000);
    const std::string old_blob = EncodePostings(list, kPostingBlockV1);
    EXPECT_EQ(old_blob == EncodePostings(list), n <= kPostingBlock) << "the layouts agree up to one block: " << n;
    std::vector<Posting> back;
    ASSERT_TRUE(DecodePostings(old_blob, &back).ok()) << n;
    EXPECT_EQ(back, list) << n;
    PostingCursor cursor;
    ASSERT_TRUE(cursor.Open(old_blob).ok()) << n;
    for (size_t i = 0; i < list.size(); i += 1 + rng() % 90) {
      const Posting* got = cursor.NextGeq(list[i].doc - static_cast<int64_t>(rng() % 2));
      ASSERT_NE(got, nullptr) << n << " " << i;
      EXPECT_EQ(*got, list[i]);
    }
    EXPECT_EQ(cursor.NextGeq(list.back().doc + 1), nullptr);
    EXPECT_TRUE(cursor.status().ok());
  }
}

// A block count that fits neither layout is damage.
TEST(PostingsCodec, ABlockCountOfNeitherLayoutIsCorruption) {
  std::mt19937_64 rng(78);
  const std::string blob = EncodePostings(RandomList(rng, 1000, 10), 200);  // 5 blocks: neither 32 nor 8
  std::vector<Posting> out;
  EXPECT_EQ(DecodePostings(blob, &out).code(), StatusCode::kCorruption);
  PostingCursor cursor;
  EXPECT_EQ(cursor.Open(blob).code(), StatusCode::kCorruption);
}

TEST(PostingsCodec, EmptyBlobIsAnEmptyList) {
  std::vector<Posting> out = {{1, 1, 1, 1}};
  ASSERT_TRUE(DecodePostings("", &out).ok());
  EXPECT_TRUE(out.empty());
  PostingCursor c;
  ASSERT_TRUE(c.Open("").ok());
  EXPECT_EQ(c.NextGeq(0), nullptr);
}

TEST(PostingsCodec, DamagedBlobsAreCorruptionNotCrashes) {
  std::mt19937_64 rng(5);
  std::string blob = EncodePostings(RandomList(rng, 300, 10));
  std::vector<Posting> out;
  for (size_t cut = 1; cut < blob.size(); ++cut) {
    std::string_view part(blob.data(), cut);
    EXPECT_EQ(DecodePostings(part, &out).code(), StatusCode::kCorruption) << cut;
    PostingCursor c;
    if (c.Open(part).ok()) {
      for (int64_t t = 0; t < 4000 && c.NextGeq(t) != nullptr; t += 37) {
      }
    }
  }
  EXPECT_EQ(DecodePostings(blob + "x", &out).code(), StatusCode::kCorruption);
  EXPECT_EQ(DecodePostings(std::string(12, '\xFF'), &out).code(), StatusCode::kCorruption);
  // Flipping any byte is either detected or decodes to some list: never a crash.
  for (size_t i = 0; i < blob.size(); ++i) {
    std::string bad = blob;
    bad[i] = static_cast<char>(bad[i] ^ 0x5A);
    (void)DecodePostings(bad, &out);
    PostingCursor c;
    if (c.Open(bad).ok()) {
      for (int64_t t = 0; t < 4000 && c.NextGeq(t) != nullptr; t += 13) {
      }
    }
  }
}

}  // namespace
}  // namespace engram::store
