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

}  // namespace engram::text
