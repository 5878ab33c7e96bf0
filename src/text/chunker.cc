#include "text/chunker.h"

#include <algorithm>

#include "common/utf8.h"

namespace engram::text {

namespace {

using common::DecodeUtf8;

struct Piece {
  size_t begin;
  size_t end;
  size_t words;
};

enum Level { kParagraph = 0, kLine, kSentence, kClause, kWord, kLevels };

bool IsSpace(char32_t cp) { return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == 0x3000; }

// Cut points (byte offsets where a new piece starts) inside [b, e) at a level.
std::vector<size_t> CutPoints(std::string_view text, size_t b, size_t e, Level level) {
  std::vector<size_t> cuts;
  size_t i = b;
  while (i < e) {
    size_t start = i;
    char32_t cp = DecodeUtf8(text, &i);
    if (i > e) break;
    switch (level) {
      case kParagraph:
        if (cp == '\n') {
          size_t j = i;
          while (j < e && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
          if (j < e && text[j] == '\n') {
            while (j < e && (text[j] == '\n' || text[j] == '\r' || text[j] == ' ' || text[j] == '\t')) ++j;
            if (j < e) cuts.push_back(j);
            i = j;
          }
        }
        break;
      case kLine:
        if (cp == '\n' && i < e) cuts.push_back(i);
        break;
      case kSentence:
        if (cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F) {  // 。！？
          if (i < e) cuts.push_back(i);
        } else if ((cp == '.' || cp == '!' || cp == '?') && i < e && (text[i] == ' ' || text[i] == '\n')) {
          size_t j = i;
          while (j < e && (text[j] == ' ' || text[j] == '\n')) ++j;
          if (j < e) cuts.push_back(j);
          i = j;
        }
        break;
      case kClause:
        if (cp == 0xFF1B || cp == 0xFF1A || cp == 0xFF0C || cp == 0x3001) {  // ；：，、
          if (i < e) cuts.push_back(i);
        } else if ((cp == ';' || cp == ':' || cp == ',') && i < e && text[i] == ' ') {
          size_t j = i;
          while (j < e && text[j] == ' ') ++j;
          if (j < e) cuts.push_back(j);
          i = j;
        }
        break;
      case kWord:
        if (common::IsCjk(cp)) {
          // Each CJK character is its own word; trailing spaces stay with it.
          size_t j = i;
          while (j < e && (text[j] == ' ' || text[j] == '\n')) ++j;
          if (j < e) cuts.push_back(j);
          i = j;
        } else if (IsSpace(cp)) {
          size_t j = i;
          while (j < e && (text[j] == ' ' || text[j] == '\n' || text[j] == '\t' || text[j] == '\r')) ++j;
          if (j < e) cuts.push_back(j);
          i = j;
        } else if (i < e) {
          // A word followed directly by a CJK character ends there.
          size_t k = i;
          char32_t next = DecodeUtf8(text, &k);
          if (common::IsCjk(next)) cuts.push_back(i);
        }
        break;
      default:
        break;
    }
    (void)start;
  }
  return cuts;
}

void Split(std::string_view text, size_t b, size_t e, int level, size_t target, std::vector<Piece>* out) {
  size_t words = common::CountWords(text.substr(b, e - b));
  if (words <= target || level >= kLevels) {
    out->push_back({b, e, words});
    return;
  }
  std::vector<size_t> cuts = CutPoints(text, b, e, static_cast<Level>(level));
  if (cuts.empty()) {
    Split(text, b, e, level + 1, target, out);
    return;
  }
  size_t s = b;
  for (size_t c : cuts) {
    if (c > s) Split(text, s, c, level + 1, target, out);
    s = c;
  }
  if (e > s) Split(text, s, e, level + 1, target, out);
}

}  // namespace

std::vector<TextChunk> ChunkText(std::string_view text, const ChunkerOptions& options) {
  std::vector<TextChunk> chunks;
  const size_t target = std::max<size_t>(options.target_words, 1);
  const size_t overlap = std::min(options.overlap_words, target / 2);
  std::vector<Piece> pieces;
  Split(text, 0, text.size(), kParagraph, target, &pieces);

  // Cuts fall between words, so a chunk's words are its pieces' words.
  auto emit = [&](size_t first, size_t last) {
    size_t b = pieces[first].begin, e = pieces[last].end;
    while (b < e && (text[b] == ' ' || text[b] == '\n' || text[b] == '\t' || text[b] == '\r')) ++b;
    while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\n' || text[e - 1] == '\t' || text[e - 1] == '\r')) --e;
    if (e <= b) return;
    TextChunk c;
    c.begin = b;
    c.end = e;
    c.text = std::string(text.substr(b, e - b));
    for (size_t k = first; k <= last; ++k) c.words += pieces[k].words;
    if (c.words == 0 && chunks.empty() && c.text.empty()) return;
    chunks.push_back(std::move(c));
  };

  size_t n = pieces.size();
  size_t start = 0;
  while (start < n) {
    size_t sum = 0;
    size_t end = start;  // one past the last piece of this chunk
    while (end < n && (end == start || sum + pieces[end].words <= target)) {
      sum += pieces[end].words;
      ++end;
    }
    emit(start, end - 1);
    if (end >= n) break;
    // The next chunk starts with the trailing pieces of this one that fit in
    // the overlap budget, and must leave room for at least one new piece.
    size_t next = end;
    size_t carried = 0;
    while (next > start + 1 && carried + pieces[next - 1].words <= overlap &&
           carried + pieces[next - 1].words + pieces[end].words <= target) {
      carried += pieces[next - 1].words;
      --next;
    }
    start = next;
  }
  // Drop chunks with no words at all (only punctuation or markup remains).
  chunks.erase(std::remove_if(chunks.begin(), chunks.end(), [](const TextChunk& c) { return c.text.empty(); }),
               chunks.end());
  return chunks;
}

int LineAt(std::string_view text, size_t offset, int first_line) {
  offset = std::min(offset, text.size());
  return first_line + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

int LineCounter::At(size_t offset) {
  offset = std::min(offset, text_.size());
  if (offset < offset_) {
    offset_ = 0;
    line_ = first_line_;
  }
  line_ += static_cast<int>(std::count(text_.begin() + static_cast<long>(offset_), text_.begin() + static_cast<long>(offset), '\n'));
  offset_ = offset;
  return line_;
}

}  // namespace engram::text
