// store/varint: the one varint codec. Round trips against the values'
// definition, and every malformed input rejected (the old term-list decoder
// in the SQLite engine returned a silently shortened list).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "store/varint.h"

namespace engram::store {
namespace {

TEST(Varint, RoundTripsEdgeAndRandomValuesInTheFewestBytes) {
  std::vector<uint64_t> values = {0, 1, 127, 128, 255, 16383, 16384, (1ull << 35) - 1, 1ull << 63,
                                  std::numeric_limits<uint64_t>::max()};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) values.push_back(rng() >> (rng() % 64));
  for (uint64_t v : values) {
    std::string s;
    AppendVarint(v, &s);
    size_t bytes = 1;
    for (uint64_t rest = v >> 7; rest != 0; rest >>= 7) ++bytes;
    EXPECT_EQ(s.size(), bytes) << v;
    size_t pos = 0;
    uint64_t got = 0;
    ASSERT_TRUE(ReadVarint(s, &pos, &got)) << v;
    EXPECT_EQ(got, v);
    EXPECT_EQ(pos, s.size());
  }
}

TEST(Varint, RejectsTruncatedOverlongAndOverflowingInput) {
  auto reads = [](const std::string& s) {
    size_t pos = 0;
    uint64_t v = 0;
    return ReadVarint(s, &pos, &v);
  };
  EXPECT_FALSE(reads(""));
  EXPECT_FALSE(reads("\x80"));
  EXPECT_FALSE(reads("\xff\xff"));
  std::string ten(9, '\xff');
  EXPECT_TRUE(reads(ten + '\x01'));           // 2^64 - 1
  EXPECT_FALSE(reads(ten + '\x02'));          // bit 64: would be lost
  EXPECT_FALSE(reads(ten + '\x7f'));
  EXPECT_FALSE(reads(ten + '\x81' + '\x00'));  // an 11th byte
}

TEST(Varint, IdListsRoundTripAndADamagedListIsRejectedWhole) {
  const std::vector<int64_t> ids = {0, 5, 127, 128, 1 << 20, std::numeric_limits<int64_t>::max()};
  std::string blob = EncodeIds(ids);
  std::vector<int64_t> got;
  ASSERT_TRUE(DecodeIds(blob, &got));
  EXPECT_EQ(got, ids);
  EXPECT_TRUE(DecodeIds("", &got));
  EXPECT_TRUE(got.empty());
  // Cut inside the last id: the old decoder returned the first five.
  EXPECT_FALSE(DecodeIds(blob.substr(0, blob.size() - 1), &got));
  EXPECT_TRUE(got.empty());
  std::string too_big;
  AppendVarint(static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1, &too_big);
  EXPECT_FALSE(DecodeIds(too_big, &got));
}

}  // namespace
}  // namespace engram::store
