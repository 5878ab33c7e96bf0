#include "text/chunker.h"

#include <gtest/gtest.h>

#include "common/utf8.h"

namespace engram::text {
namespace {

std::string Words(int n, const std::string& prefix = "w") {
  std::string s;
  for (int i = 0; i < n; ++i) s += prefix + std::to_string(i) + (i % 12 == 11 ? ". " : " ");
  return s;
}

TEST(Chunker, EmptyAndBlankTextGiveNoChunks) {
  EXPECT_TRUE(ChunkText("", {}).empty());
  EXPECT_TRUE(ChunkText(" \n\n\t ", {}).empty());
}

TEST(Chunker, ShortTextIsOneTrimmedChunk) {
  auto chunks = ChunkText("\n  Hello world.\n\n", {});
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].text, "Hello world.");
  EXPECT_EQ(chunks[0].begin, 3u);
  EXPECT_EQ(chunks[0].words, 2u);
}

TEST(Chunker, LongTextStaysUnderTheTargetWithOverlap) {
  std::string text = Words(1000);
  ChunkerOptions o{300, 50};
  auto chunks = ChunkText(text, o);
  ASSERT_GE(chunks.size(), 4u);
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_LE(chunks[i].words, 300u);
    EXPECT_EQ(text.substr(chunks[i].begin, chunks[i].end - chunks[i].begin), chunks[i].text);
    if (i > 0) {
      EXPECT_LT(chunks[i].begin, chunks[i - 1].end) << "chunks overlap";
      EXPECT_GT(chunks[i].begin, chunks[i - 1].begin) << "chunks advance";
      size_t overlap = common::CountWords(text.substr(chunks[i].begin, chunks[i - 1].end - chunks[i].begin));
      EXPECT_LE(overlap, 50u);
      EXPECT_GE(overlap, 20u);
    }
  }
  EXPECT_EQ(chunks.back().end, text.find_last_not_of(' ') + 1);
}

TEST(Chunker, PrefersParagraphBoundaries) {
  std::string a = Words(200, "a"), b = Words(200, "b");
  auto chunks = ChunkText(a + "\n\n" + b, {300, 50});
  ASSERT_GE(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].text.find('b'), std::string::npos) << "first chunk holds only the first paragraph";
}

TEST(Chunker, CountsChineseCharactersAsWordsAndSplitsOnSentenceEnders) {
  std::string sentence = "知识库检索需要先把中文切分成片段。";  // 16 characters + 。
  std::string text;
  for (int i = 0; i < 40; ++i) text += sentence;
  auto chunks = ChunkText(text, {100, 20});
  ASSERT_GE(chunks.size(), 6u);
  for (const auto& c : chunks) {
    EXPECT_LE(c.words, 100u);
    EXPECT_EQ(c.text.substr(c.text.size() - 3), "。") << "chunks end on a sentence";
  }
}

TEST(Chunker, SplitsAVeryLongWordlessRunByWords) {
  std::string text(3000, 'x');
  text += " tail";
  auto chunks = ChunkText(text, {10, 2});
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.back().text.substr(chunks.back().text.size() - 4), "tail");
}

TEST(Chunker, IsDeterministic) {
  std::string text = Words(777) + "\n\n中文段落。" + Words(100);
  auto a = ChunkText(text, {});
  auto b = ChunkText(text, {});
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].text, b[i].text);
}

TEST(Chunker, LineCounterAgreesWithLineAtInAnyOrder) {
  const std::string text = "a\nbb\n\nccc\nd\n\n\ne";
  LineCounter counter(text, 3);
  for (size_t offset : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{6}, size_t{6}, size_t{12}, size_t{3},
                        size_t{100}, size_t{0}, size_t{15}}) {
    EXPECT_EQ(counter.At(offset), LineAt(text, offset, 3)) << offset;
  }
}

TEST(Chunker, LineAtCountsNewlines) {
  EXPECT_EQ(LineAt("a\nb\nc", 0, 5), 5);
  EXPECT_EQ(LineAt("a\nb\nc", 2, 5), 6);
  EXPECT_EQ(LineAt("a\nb\nc", 4, 5), 7);
}

}  // namespace
}  // namespace engram::text
