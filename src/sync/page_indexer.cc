#include "sync/page_indexer.h"


#include "common/flat_string_map.h"
#include "common/hash.h"
#include "text/analyzer.h"
#include "text/page_parser.h"

namespace engram::sync {

TermVector BuildTermVector(std::string_view text) {
  std::vector<text::Token> tokens;
  text::Analyze(text, &tokens);
  TermVector tv;
  tv.length = static_cast<uint32_t>(tokens.size());
  // Distinct terms in order of first occurrence: deterministic without a sort.
  common::FlatStringMap<uint32_t> index(tokens.size() * 2 + 16);
  tv.terms.reserve(tokens.size());
  for (auto& t : tokens) {
    if (const uint32_t* at = index.Find(t.term)) {
      ++tv.terms[*at].second;
    } else {
      index.Put(t.term, static_cast<uint32_t>(tv.terms.size()));
      tv.terms.emplace_back(std::move(t.term), 1);
    }
  }
  return tv;
}

namespace {

void AddChunks(const std::string& section, int first_line, const char* source,
               const text::ChunkerOptions& options, std::vector<ChunkWrite>* out) {
  for (const text::TextChunk& c : text::ChunkText(section, options)) {
    ChunkWrite w;
    w.ordinal = static_cast<int>(out->size());
    w.source = source;
    w.text = c.text;
    w.token_count = static_cast<int>(c.words);
    w.line_start = text::LineAt(section, c.begin, first_line);
    w.line_end = text::LineAt(section, c.end > c.begin ? c.end - 1 : c.begin, first_line);
    w.terms = BuildTermVector(c.text);
    if (w.terms.length == 0) continue;  // nothing searchable (only punctuation/markup)
    out->push_back(std::move(w));
  }
}

}  // namespace

Result<PageWrite> PreparePage(std::string_view path, std::string_view content,
                              const text::ChunkerOptions& chunker) {
  ENGRAM_ASSIGN_OR_RETURN(Page page, text::ParsePage(path, content));
  PageWrite w;
  w.content = std::string(content);
  w.content_hash = common::Sha256Hex(content);
  AddChunks(page.compiled_truth, page.compiled_truth_line, "compiled_truth", chunker, &w.chunks);
  AddChunks(page.timeline, page.timeline_line, "timeline", chunker, &w.chunks);
  for (size_t i = 0; i < w.chunks.size(); ++i) w.chunks[i].ordinal = static_cast<int>(i);
  std::string title_text = page.title;
  for (const auto& a : page.aliases) title_text += "\n" + a;
  w.title_terms = BuildTermVector(title_text);
  w.page = std::move(page);
  return w;
}

}  // namespace engram::sync
