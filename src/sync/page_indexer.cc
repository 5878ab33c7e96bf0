#include "sync/page_indexer.h"

#include <cstdlib>
#include <exception>
#include <stdexcept>

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

void AddChunks(const std::string& section, int first_line, ChunkSource source,
               const text::ChunkerOptions& options, std::vector<ChunkWrite>* out) {
  // Chunk starts and ends both ascend: one counter each keeps this linear.
  text::LineCounter starts(section, first_line), ends(section, first_line);
  for (const text::TextChunk& c : text::ChunkText(section, options)) {
    ChunkWrite w;
    w.ordinal = static_cast<int>(out->size());
    w.source = source;
    w.text = c.text;
    w.token_count = static_cast<int>(c.words);
    w.line_start = starts.At(c.begin);
    w.line_end = ends.At(c.end > c.begin ? c.end - 1 : c.begin);
    w.terms = BuildTermVector(c.text);
    if (w.terms.length == 0) continue;  // nothing searchable (only punctuation/markup)
    out->push_back(std::move(w));
  }
}

// Test-only fault point: with ENGRAM_FAULT_THROW_PREPARING=PATH, preparing
// that file throws, as a bug in a parser or a library would.
void FaultThrowPreparing(std::string_view path) {
  const char* v = std::getenv("ENGRAM_FAULT_THROW_PREPARING");
  if (v != nullptr && path == v) throw std::runtime_error("injected fault (ENGRAM_FAULT_THROW_PREPARING)");
}

Result<PageWrite> PreparePageOrThrow(std::string_view path, std::string_view content, const IndexOptions& options) {
  FaultThrowPreparing(path);
  ENGRAM_ASSIGN_OR_RETURN(Page page, text::ParsePage(path, content, options.parse));
  PageWrite w;
  w.content = std::string(content);
  w.content_hash = common::Sha256Hex(content);
  AddChunks(page.compiled_truth, page.compiled_truth_line, ChunkSource::kCompiledTruth, options.chunker, &w.chunks);
  AddChunks(page.timeline, page.timeline_line, ChunkSource::kTimeline, options.chunker, &w.chunks);
  for (size_t i = 0; i < w.chunks.size(); ++i) w.chunks[i].ordinal = static_cast<int>(i);
  std::string title_text = page.title;
  for (const auto& a : page.aliases) title_text += "\n" + a;
  w.title_terms = BuildTermVector(title_text);
  w.date = page.date;  // the file's date, when the frontmatter gives none, is the caller's
  w.page = std::move(page);
  return w;
}

}  // namespace

Result<PageWrite> PreparePage(std::string_view path, std::string_view content, const IndexOptions& options) {
  // One file must never abort a batch (a 6,289-note import once ended with 0
  // pages on an exception from a JSON dump): whatever a parser, yaml-cpp,
  // nlohmann or the allocator throws becomes this file's failure.
  try {
    return PreparePageOrThrow(path, content, options);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("could not be prepared (") + e.what() + "); please report this file");
  } catch (...) {
    return Status::Internal("could not be prepared (unknown exception); please report this file");
  }
}

namespace {

constexpr std::string_view kNoteDatesMark = "1";
std::string NoteDatesKey(std::string_view source) { return "note_dates:" + std::string(source); }

}  // namespace

Result<bool> NoteDatesCurrent(ConfigStore& engine, std::string_view source) {
  ENGRAM_ASSIGN_OR_RETURN(std::string mark, engine.GetConfigValue(NoteDatesKey(source)));
  return mark == kNoteDatesMark;
}

Status RecordNoteDates(ConfigStore& engine, std::string_view source) {
  return engine.SetConfigValue(NoteDatesKey(source), kNoteDatesMark);
}

}  // namespace engram::sync
