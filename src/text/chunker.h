// The recursive chunker (MISSION.md section 1): ~300 words per chunk with ~50
// words of overlap, split on paragraphs, then lines, sentences (. ! ? 。！？),
// clauses (; : , ；：，、), then words. Length is counted CJK-aware: each
// CJK character counts as one word. Deterministic: same text, same chunks.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace engram::text {

struct ChunkerOptions {
  size_t target_words = 300;  // a chunk holds at most this many words, unless one word is longer
  size_t overlap_words = 50;  // words repeated from the end of the previous chunk
};

struct TextChunk {
  std::string text;   // trimmed
  size_t begin = 0;   // byte offset of text in the input
  size_t end = 0;     // one past its last byte
  size_t words = 0;   // CJK-aware word count
};

// Splits text into chunks. Empty or blank text gives no chunks. Chunks are
// contiguous byte ranges of the input; consecutive chunks may overlap.
std::vector<TextChunk> ChunkText(std::string_view text, const ChunkerOptions& options);

// 1-based line number of byte offset `offset` in text, counting from first_line.
int LineAt(std::string_view text, size_t offset, int first_line);

// LineAt for a sequence of offsets: each call counts only the newlines since
// the previous offset, so ascending offsets cost one pass over the text in
// all (a page's chunks, in order: linear, not quadratic, in the page size).
// A smaller offset than the last starts again from the beginning.
class LineCounter {
 public:
  LineCounter(std::string_view text, int first_line) : text_(text), first_line_(first_line), line_(first_line) {}
  int At(size_t offset);

 private:
  std::string_view text_;
  int first_line_;
  size_t offset_ = 0;
  int line_;
};

}  // namespace engram::text
