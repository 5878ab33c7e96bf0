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

// Oracle for the bit packing: every width from 0 to 64, values at the
// width's extremes, against a bit-at-a-time reference; and PackedAt reads
// each value back, also from the last bytes of a buffer.
TEST(BitPacking, MatchesABitAtATimeReference) {
  std::mt19937_64 rng(3);
  for (unsigned w = 0; w <= 64; ++w) {
    const uint64_t mask = w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
    for (size_t n : {0, 1, 7, 8, 9, 31, 32, 33}) {
      std::vector<uint64_t> values(n);
      for (size_t i = 0; i < n; ++i) values[i] = i % 3 == 0 ? mask : (i % 3 == 1 ? 0 : rng() & mask);
      std::string want(PackedBytes(n, w), '\0');
      for (size_t i = 0; i < n; ++i) {
        for (unsigned bit = 0; bit < w; ++bit) {
          if ((values[i] >> bit) & 1) want[(i * w + bit) / 8] |= static_cast<char>(1u << ((i * w + bit) % 8));
        }
      }
      std::string got = "x";  // appended after what is there
      AppendPacked(values.data(), n, w, &got);
      ASSERT_EQ(got.substr(1), want) << "w " << w << " n " << n;
      const auto* p = reinterpret_cast<const unsigned char*>(got.data()) + 1;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(PackedAt(p, p + (got.size() - 1), i, w), values[i]) << "w " << w << " n " << n << " i " << i;
      }
    }
  }
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

// Extreme values take the widest columns (ids of 62 bits, 32-bit tf and dl,
// values straddling a 64-bit word): they round-trip, through the decoder
// and the cursor.
TEST(PostingsCodec, RoundTripsTheWidestValues) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Posting> list;
    int64_t doc = trial % 2 ? 0 : static_cast<int64_t>(rng() % 1000);
    for (size_t i = 0; i < 1 + rng() % 100; ++i) {
      const int64_t room = static_cast<int64_t>(kMaxPostingId) - doc;
      if (room < 2) break;
      doc += 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(std::min<int64_t>(room - 1, int64_t{1} << 58)));
      list.push_back({doc, static_cast<int64_t>(rng() % kMaxPostingId), static_cast<uint32_t>(rng()),
                      i % 3 == 0 ? UINT32_MAX : static_cast<uint32_t>(rng())});
    }
    const std::string blob = EncodePostings(list);
    std::vector<Posting> back;
    ASSERT_TRUE(DecodePostings(blob, &back).ok()) << trial;
    EXPECT_EQ(back, list) << trial;
    PostingCursor cursor;
    ASSERT_TRUE(cursor.Open(blob).ok());
    for (const Posting& p : list) {
      const Posting* got = cursor.NextGeq(p.doc);
      ASSERT_NE(got, nullptr);
      EXPECT_EQ(*got, p);
    }
  }
}

// Oracle for the block table the threshold seed reads in place: every
// block's last doc, max tf and min dl equal those of its postings (brute
// force over the list cut into kPostingBlock runs), and a cursor walking the
// list finds a posting in every block.
TEST(PostingsCodec, BlockTableBoundsAreExactForEveryBlock) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Posting> list = RandomList(rng, 1 + rng() % 3000, 1 + trial * 5);
    const std::string blob = EncodePostings(list);
    PostingCursor table, walk;
    ASSERT_TRUE(table.Open(blob).ok());
    ASSERT_TRUE(walk.Open(blob).ok());
    ASSERT_EQ(table.blocks(), (list.size() + kPostingBlock - 1) / kPostingBlock);
    for (size_t b = 0; b < table.blocks(); ++b) {
      const size_t begin = b * kPostingBlock, end = std::min(list.size(), begin + kPostingBlock);
      uint32_t want_tf = 0, want_dl = UINT32_MAX;
      for (size_t i = begin; i < end; ++i) {
        want_tf = std::max(want_tf, list[i].tf);
        want_dl = std::min(want_dl, list[i].dl);
      }
      int64_t last = 0;
      uint32_t max_tf = 0, min_dl = 0;
      table.BlockEntry(b, &last, &max_tf, &min_dl);
      EXPECT_EQ(last, list[end - 1].doc) << trial << " " << b;
      EXPECT_EQ(max_tf, want_tf) << trial << " " << b;
      EXPECT_EQ(min_dl, want_dl) << trial << " " << b;
      const Posting& want = list[begin + rng() % (end - begin)];
      const Posting* p = walk.NextGeq(want.doc);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(*p, want);
    }
    EXPECT_TRUE(walk.status().ok());
  }
}

// A damaged list never makes a cursor go backwards: whatever the bytes,
// the docs it returns strictly increase and are at least the target.
TEST(PostingsCodec, ACursorOverADamagedListStillMovesForward) {
  std::mt19937_64 rng(13);
  const std::string blob = EncodePostings(RandomList(rng, 500, 7));
  for (size_t i = 0; i < blob.size(); ++i) {
    for (unsigned char flip : {0x01, 0x5A, 0xFF}) {
      std::string bad = blob;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      PostingCursor c;
      if (!c.Open(bad).ok()) continue;
      int64_t last = -1;
      for (int64_t t = 0; t < 5000; t = std::max(t + 1 + static_cast<int64_t>(rng() % 40), last + 1)) {
        const Posting* p = c.NextGeq(t);
        if (p == nullptr) break;
        ASSERT_GE(p->doc, t) << i;
        ASSERT_GT(p->doc, last) << i;
        last = p->doc;
      }
    }
  }
}

// Lists written in the varint layouts (128 postings per block before
// 2026-12-02, then 32) are still read, by the decoder and the cursor alike.
TEST(PostingsCodec, ReadsListsOfTheVarintLayouts) {
  std::mt19937_64 rng(77);
  for (size_t block : {kPostingBlockV1, kPostingBlockV2}) {
    for (size_t n : {1, 32, 33, 127, 128, 129, 1000, 5000}) {
      std::vector<Posting> list = RandomList(rng, n, n % 2 ? 3 : 5000);
      const std::string old_blob = EncodeVarintPostings(list, block);
      EXPECT_EQ(old_blob == EncodeVarintPostings(list, kPostingBlockV1 + kPostingBlockV2 - block), n <= 32)
          << "the varint layouts agree up to one block: " << n;
      EXPECT_NE(old_blob, EncodePostings(list));
      std::vector<Posting> back;
      ASSERT_TRUE(DecodePostings(old_blob, &back).ok()) << n;
      EXPECT_EQ(back, list) << n;
      auto info = ReadPostingInfo(old_blob);
      ASSERT_TRUE(info.ok());
      EXPECT_EQ(info->count, n);
      PostingCursor cursor;
      ASSERT_TRUE(cursor.Open(old_blob).ok()) << n;
      for (size_t i = 0; i < list.size(); i += 1 + rng() % 90) {
        const int64_t before = i > 0 ? list[i - 1].doc + 1 : 0;  // a target past the posting before
        const Posting* got = cursor.NextGeq(std::max(before, list[i].doc - static_cast<int64_t>(rng() % 2)));
        ASSERT_NE(got, nullptr) << n << " " << i;
        EXPECT_EQ(*got, list[i]);
      }
      EXPECT_EQ(cursor.NextGeq(list.back().doc + 1), nullptr);
      EXPECT_TRUE(cursor.status().ok());
    }
  }
}

// A block count that fits neither varint layout is damage.
TEST(PostingsCodec, ABlockCountOfNeitherLayoutIsCorruption) {
  std::mt19937_64 rng(78);
  const std::string blob = EncodeVarintPostings(RandomList(rng, 1000, 10), 200);  // 5 blocks: neither 32 nor 8
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
