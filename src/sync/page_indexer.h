// Turns a Markdown file into the rows the engine stores: the parsed page,
// its chunks with analysed terms, and the analysed title and aliases.
#pragma once

#include <string_view>

#include "engram/store/config_store.h"
#include "engram/store/page_store.h"
#include "engram/status.h"
#include "text/chunker.h"
#include "text/page_parser.h"

namespace engram::sync {

// How a file becomes rows: chunking, and the parser's choices (which name is
// the title). Both shape derived rows, so every writer and `check`'s rebuild
// of one brain use the brain's. Converts from ChunkerOptions alone (the
// parser's defaults).
struct IndexOptions {
  IndexOptions(text::ChunkerOptions c = {}, text::ParseOptions p = {}) : chunker(c), parse(p) {}  // NOLINT
  text::ChunkerOptions chunker;
  text::ParseOptions parse;
};

// path is source-relative ("people/zhang-san.md"). The write's date is the
// frontmatter's (Page::date), "" when it has none. Fails when the content
// is not text (invalid UTF-8, NUL bytes); frontmatter problems are warnings
// in the returned page. Never throws: an exception while preparing the page
// (a bug) is returned as Internal, so one file cannot abort a batch.
Result<PageWrite> PreparePage(std::string_view path, std::string_view content, const IndexOptions& options);

// Whether a source's pages carry their notes' dates (PageWrite::date).
// Pages indexed before engram dated notes hold the time they were indexed;
// the next sync or import of such a source writes every file again with its
// date, then records that it did (in the batch that wrote them).
Result<bool> NoteDatesCurrent(ConfigStore& engine, std::string_view source);
Status RecordNoteDates(ConfigStore& engine, std::string_view source);

// Analysed term frequencies of text (used for chunks and titles).
TermVector BuildTermVector(std::string_view text);

}  // namespace engram::sync
