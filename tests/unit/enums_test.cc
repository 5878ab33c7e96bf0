// The enum classes that replaced strings (ChunkSource, SearchMode): every
// value has one name, every name parses back, and nothing else parses.
#include <gtest/gtest.h>

#include "engram/page.h"
#include "engram/search.h"

namespace engram {
namespace {

TEST(Enums, ChunkSourceNamesRoundTrip) {
  for (ChunkSource s : {ChunkSource::kCompiledTruth, ChunkSource::kTimeline}) {
    EXPECT_EQ(ParseChunkSource(ChunkSourceName(s)), s);
  }
  EXPECT_STREQ(ChunkSourceName(ChunkSource::kCompiledTruth), "compiled_truth");  // as stored and in JSON
  EXPECT_STREQ(ChunkSourceName(ChunkSource::kTimeline), "timeline");
  EXPECT_STREQ(ChunkSourceName(static_cast<ChunkSource>(7)), "");
  for (const char* bad : {"", "Timeline", "compiled truth", "bogus"}) EXPECT_FALSE(ParseChunkSource(bad)) << bad;
}

TEST(Enums, SearchModeNamesRoundTrip) {
  for (SearchMode m : {SearchMode::kDefault, SearchMode::kKeyword, SearchMode::kVector, SearchMode::kHybrid}) {
    EXPECT_EQ(ParseSearchMode(SearchModeName(m)), m);
  }
  EXPECT_STREQ(SearchModeName(SearchMode::kHybrid), "hybrid");
  EXPECT_EQ(ParseSearchMode(""), SearchMode::kDefault) << "config.toml's search.mode = \"\"";
  for (const char* bad : {"Keyword", "fast", "hybrid ", "bm25"}) EXPECT_FALSE(ParseSearchMode(bad)) << bad;
}

}  // namespace
}  // namespace engram
